//! The explorer's memory: the budget a search keeps within (`--max-memory`, or half of what
//! the machine, its cgroup and the address-space limit allow), and the peak it reached.

use super::bad;
use cancelcheck::trace_file;

/// A memory budget and where it came from.
pub(super) struct Budget {
    pub(super) bytes: u64,
    pub(super) from: String,
}

/// `--max-memory`, or the default: half the least of the memory available, the cgroup's
/// limit and the address-space limit.
pub(super) fn memory_budget(flag: Option<&str>) -> anyhow::Result<Budget> {
    if let Some(s) = flag {
        let bytes = parse_size(s).ok_or_else(|| {
            bad(format!(
                "--max-memory {:?}: expected a size of at least 1M, e.g. 512M, 2G or 1073741824",
                trace_file::clip(s)
            ))
        })?;
        return Ok(Budget {
            bytes,
            from: "--max-memory".into(),
        });
    }
    let mut known: Vec<(u64, &str)> = Vec::new();
    if let Ok(info) = std::fs::read_to_string("/proc/meminfo") {
        let field = |name: &str| {
            info.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|kib| kib.parse::<u64>().ok())
                .map(|kib| kib.saturating_mul(1024))
        };
        if let Some(b) = field("MemAvailable:") {
            known.push((b, "half of MemAvailable"));
        } else if let Some(b) = field("MemTotal:") {
            known.push((b, "half of MemTotal"));
        }
    }
    if let Ok(max) = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        && let Ok(b) = max.trim().parse::<u64>()
    {
        known.push((b, "half of the cgroup's memory.max"));
    }
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the limit into the struct passed, which lives on this stack.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
        if ok && lim.rlim_cur != libc::RLIM_INFINITY {
            known.push((lim.rlim_cur, "half of the address-space limit (ulimit -v)"));
        }
    }
    Ok(match known.into_iter().min_by_key(|k| k.0) {
        Some((b, from)) => Budget {
            bytes: (b / 2).max(1 << 20),
            from: from.into(),
        },
        None => Budget {
            bytes: 2 << 30,
            from: "no memory figure found: 2 GiB".into(),
        },
    })
}

/// A size: bytes, or a number with `K`, `M`, `G` or `T` (powers of 1024; `MiB`, `MB` and `m`
/// read the same); at least 1 MiB.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(digits);
    let n: u64 = n.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    let bytes = n.checked_mul(1u64 << shift)?;
    (bytes >= 1 << 20).then_some(bytes)
}

/// The process's peak resident memory so far (Linux `VmHWM`), where the system reports it.
pub(super) fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
