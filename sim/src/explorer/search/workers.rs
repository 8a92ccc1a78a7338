//! Threads kept for a whole search, which run jobs that borrow from the thread handing them
//! out, as scoped threads do, without starting a thread for each job. A breadth-first search
//! on several threads hands out two batches of jobs a level (expanding the later shares, then
//! marking which candidates are new). On the project's machine a thread started for each job
//! took about 160 microseconds to start it, a kept thread woken for it about 40 (medians of
//! ten searches, measured when kept threads replaced a thread started for each job).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::mpsc;
use std::thread::{self, JoinHandle};

/// A job as a worker's thread receives it: its borrows' lifetime erased (see [`hand_out`]).
type Job = Box<dyn FnOnce() + Send + 'static>;

/// Whether a job finished, or the panic that stopped it.
type Finished = thread::Result<()>;

/// A thread that runs the jobs [`run_each`] and [`join`] hand it, one at a time, until it is
/// dropped (which waits for the job it runs, if any, and ends the thread).
pub(super) struct Worker {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the thread.
    pub(super) fn new() -> Worker {
        let (jobs, queue) = mpsc::channel::<Job>();
        let thread = thread::Builder::new()
            .name("cancelcheck-explore".into())
            .spawn(move || {
                while let Ok(job) = queue.recv() {
                    job();
                }
            })
            .expect("the explorer could not start a thread");
        Worker {
            jobs: Some(jobs),
            thread: Some(thread),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Its queue closed, the thread ends once its last job is done.
        drop(self.jobs.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Gives `job` to `worker` with `done` to report on, or gives it back if the worker's thread
/// has ended (its queue closed).
///
/// # Safety
///
/// The caller must not return, normally or by a panic, before `job` has finished or been
/// dropped: it must wait until every clone of `done` is dropped ([`wait`]). That is what
/// makes the job's borrows outlive its use of them, as a scoped thread's do.
unsafe fn hand_out<'a>(
    worker: &Worker,
    job: impl FnOnce() + Send + 'a,
    done: &mpsc::Sender<Finished>,
) -> Result<(), Box<dyn FnOnce() + Send + 'a>> {
    let done = done.clone();
    // The job is called, and so dropped with what it borrows, before `done` reports it.
    let job: Box<dyn FnOnce() + Send + 'a> = Box::new(move || {
        let finished = catch_unwind(AssertUnwindSafe(job));
        let _ = done.send(finished);
    });
    // SAFETY: only the lifetime changes (the same fat pointer). The worker's thread calls or
    // drops the job before the last clone of `done` is dropped, and the caller waits for that
    // before returning (this function's contract), so nothing the job borrows ends before the
    // job is done with it.
    let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + 'a>, Job>(job) };
    let Some(jobs) = &worker.jobs else {
        return Err(job);
    };
    jobs.send(job)
        .map_err(|mpsc::SendError(job)| job as Box<dyn FnOnce() + Send + 'a>)
}

/// Waits until every job handed out with a clone of the sender of `done` has finished or been
/// dropped, then resumes the first panic: `own` (the caller's job) first, then the workers'
/// in the order they finished.
fn wait(done: mpsc::Receiver<Finished>, own: Finished) {
    let mut panic = own.err();
    // Ends once every clone of the sender is dropped: every job is done with.
    for finished in done {
        if let (None, Err(p)) = (&panic, finished) {
            panic = Some(p);
        }
    }
    if let Some(p) = panic {
        resume_unwind(p);
    }
}

/// Runs every job at once: the last on this thread, each other on a worker of its own, in
/// order (any job beyond the workers on this thread, in turn, before the last). Returns once
/// all have finished; if any panicked, then panics with the first panic.
pub(super) fn run_each<F: FnOnce() + Send>(
    workers: &[Worker],
    mut jobs: impl DoubleEndedIterator<Item = F>,
) {
    let last = jobs.next_back();
    let (done, finished) = mpsc::channel();
    let mut workers = workers.iter();
    let own = catch_unwind(AssertUnwindSafe(|| {
        for job in jobs {
            match workers.next() {
                Some(w) => {
                    // SAFETY: `wait` below runs whether or not a job panicked (the
                    // panic is caught), and returns only once every clone of `done` is
                    // dropped.
                    if let Err(job) = unsafe { hand_out(w, job, &done) } {
                        job();
                    }
                }
                None => job(),
            }
        }
        drop(done);
        if let Some(job) = last {
            job();
        }
    }));
    wait(finished, own);
}

/// Runs `theirs` on `worker` and `ours` on this thread, at once (should the worker's thread
/// have ended, `theirs` here first); returns once both have finished, and if either panicked,
/// then panics with `ours`'s panic, or else `theirs`'s.
pub(super) fn join(worker: &Worker, theirs: impl FnOnce() + Send, ours: impl FnOnce()) {
    let (done, finished) = mpsc::channel();
    let own = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: as in `run_each`: `wait` below returns only once `theirs` is done with.
        if let Err(theirs) = unsafe { hand_out(worker, theirs, &done) } {
            theirs();
        }
        drop(done);
        ours();
    }));
    wait(finished, own);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Jobs borrow the caller's data, mutably, and each runs once, on a worker or here, however
    /// many there are; the workers serve batch after batch.
    #[test]
    fn every_job_runs_once_and_its_borrows_are_done_with_on_return() {
        let workers: Vec<Worker> = (0..3).map(|_| Worker::new()).collect();
        for jobs in 0..7 {
            for batch in 0..3 {
                let mut slots = vec![0usize; jobs];
                let threads = std::sync::Mutex::new(std::collections::HashSet::new());
                run_each(
                    &workers,
                    slots.iter_mut().enumerate().map(|(i, s)| {
                        let threads = &threads;
                        move || {
                            *s += i + batch;
                            threads.lock().unwrap().insert(thread::current().id());
                        }
                    }),
                );
                let want: Vec<usize> = (0..jobs).map(|i| i + batch).collect();
                assert_eq!(slots, want, "{jobs} jobs, batch {batch}");
                // As many threads as jobs, up to the workers and this one.
                assert_eq!(threads.into_inner().unwrap().len(), jobs.min(4));
            }
        }
        let (mut a, mut b) = (0, 0);
        join(&workers[0], || a += 1, || b += 2);
        assert_eq!((a, b), (1, 2));
    }

    /// A panic in any job reaches the caller, but only once every job has finished.
    #[test]
    fn a_panicking_job_panics_the_caller_after_the_others_finish() {
        let workers: Vec<Worker> = (0..2).map(|_| Worker::new()).collect();
        for bad in 0..3 {
            let finished = AtomicUsize::new(0);
            let panicking = AtomicBool::new(false);
            let result = catch_unwind(AssertUnwindSafe(|| {
                run_each(
                    &workers,
                    (0..3).map(|i| {
                        let (finished, panicking) = (&finished, &panicking);
                        move || {
                            if i == bad {
                                panicking.store(true, Ordering::SeqCst);
                                panic!("job {i}");
                            }
                            // The others finish only after the panic has begun, and then not
                            // at once (each job is on a thread of its own).
                            while !panicking.load(Ordering::SeqCst) {
                                thread::yield_now();
                            }
                            for _ in 0..1000 {
                                thread::yield_now();
                            }
                            finished.fetch_add(1, Ordering::SeqCst);
                        }
                    }),
                )
            }));
            let panic = result.expect_err("the panic reaches the caller");
            assert_eq!(
                panic.downcast_ref::<String>().map(String::as_str),
                Some(&*format!("job {bad}"))
            );
            assert_eq!(
                finished.load(Ordering::SeqCst),
                2,
                "the other jobs finished first"
            );
        }
        // The workers still serve.
        let mut n = 0;
        join(&workers[0], || n += 1, || {});
        assert_eq!(n, 1);
    }
}
