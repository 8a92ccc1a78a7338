//! `--hostile`: the modes that misbehave from the start, before any protocol.

use super::*;

pub(crate) fn hostile_start(mode: &str, framing: Framing) -> Option<ExitCode> {
    let mut out = std::io::stdout().lock();
    match mode {
        "garbage" => {
            let _ = out
                .write_all(b"this is not JSON\n")
                .and_then(|()| out.flush());
        }
        "oversized" => {
            // 20 MiB in one line, larger than any frame a reader should hold.
            let chunk = vec![b'x'; 1 << 20];
            for _ in 0..20 {
                if out.write_all(&chunk).is_err() {
                    return Some(ExitCode::SUCCESS);
                }
            }
            let _ = out.write_all(b"\n").and_then(|()| out.flush());
        }
        "bad-framing" => {
            let bad: &[u8] = match framing {
                Framing::ContentLength => b"Content-Length: twelve\r\n\r\n{}",
                Framing::Ndjson => b"{\"jsonrpc\":\"2.0\",\"id\":\n",
            };
            let _ = out.write_all(bad).and_then(|()| out.flush());
        }
        "exit-early" => return Some(ExitCode::from(3)),
        "no-read" | "hang" => {
            if mode == "hang" {
                // Read everything, answer nothing.
                std::thread::spawn(|| {
                    let mut sink = Vec::new();
                    let _ = std::io::stdin().lock().read_to_end(&mut sink);
                });
            }
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        "stderr-flood" => {
            std::thread::spawn(|| {
                let line = vec![b'e'; 4096];
                let mut err = std::io::stderr().lock();
                // 64 MiB of diagnostics while it serves.
                for _ in 0..(16 * 1024) {
                    if err.write_all(&line).is_err() {
                        return;
                    }
                }
            });
        }
        _ => {}
    }
    None
}
