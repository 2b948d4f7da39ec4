//! The guest's job queue: promise reactions run to completion inside each entry's budget.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use boa_engine::job::{GenericJob, Job, JobExecutor, NativeAsyncJob, PromiseJob};
use boa_engine::{Context, JsResult};

/// Queue of pending guest jobs. Drained at the end of every entry (eval, call, handler return).
#[derive(Default)]
pub struct JobQueue {
    promise: RefCell<VecDeque<PromiseJob>>,
    generic: RefCell<VecDeque<GenericJob>>,
    asynchronous: RefCell<VecDeque<NativeAsyncJob>>,
}

impl JobQueue {
    /// Drops every pending job: used when a limit aborts the computation they belong to,
    /// so a runaway async chain cannot resume in the next call.
    pub fn clear(&self) {
        self.promise.borrow_mut().clear();
        self.generic.borrow_mut().clear();
        self.asynchronous.borrow_mut().clear();
    }

    /// Pending job count.
    pub fn len(&self) -> usize {
        self.promise.borrow().len() + self.generic.borrow().len()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl JobExecutor for JobQueue {
    fn enqueue_job(self: Rc<Self>, job: Job, _context: &mut Context) {
        match job {
            Job::PromiseJob(p) => self.promise.borrow_mut().push_back(p),
            Job::GenericJob(g) => self.generic.borrow_mut().push_back(g),
            // Module loading runs as async jobs; our loader answers at once.
            Job::AsyncJob(a) => self.asynchronous.borrow_mut().push_back(a),
            // Engine timers and finalization callbacks are not capabilities the guest has
            // (timers are ours, see platform/); dropping finalization callbacks is allowed
            // by the spec.
            _ => {}
        }
    }

    fn run_jobs(self: Rc<Self>, context: &mut Context) -> JsResult<()> {
        loop {
            // Pop before running: a job may enqueue more, which must not alias the borrow.
            let next = self.promise.borrow_mut().pop_front();
            if let Some(job) = next {
                job.call(context)?;
                continue;
            }
            let next = self.generic.borrow_mut().pop_front();
            if let Some(job) = next {
                job.call(context)?;
                continue;
            }
            let next = self.asynchronous.borrow_mut().pop_front();
            match next {
                Some(job) => run_to_completion(job, context)?,
                None => return Ok(()),
            }
        }
    }
}

/// Polls an async job until it finishes. Our module loader never waits on anything outside
/// the engine, so these futures complete without the host's event loop; one that stays
/// pending is abandoned (its promise stays pending) rather than spun on.
fn run_to_completion(job: NativeAsyncJob, context: &mut Context) -> JsResult<()> {
    use std::future::Future;
    use std::task::{Context as TaskContext, Poll, Waker};
    let cell = RefCell::new(context);
    let future = job.call(&cell);
    let mut future = std::pin::pin!(future);
    let mut cx = TaskContext::from_waker(Waker::noop());
    for _ in 0..10_000 {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(result) => return result.map(|_| ()),
            Poll::Pending => {}
        }
    }
    Ok(())
}
