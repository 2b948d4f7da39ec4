//! The guest's job queue: promise reactions run to completion inside each entry's budget.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use boa_engine::job::{GenericJob, Job, JobExecutor, PromiseJob};
use boa_engine::{Context, JsResult};

/// Queue of pending guest jobs. Drained at the end of every entry (eval, call, handler return).
#[derive(Default)]
pub struct JobQueue {
    promise: RefCell<VecDeque<PromiseJob>>,
    generic: RefCell<VecDeque<GenericJob>>,
}

impl JobQueue {
    /// Drops every pending job: used when a limit aborts the computation they belong to,
    /// so a runaway async chain cannot resume in the next call.
    pub fn clear(&self) {
        self.promise.borrow_mut().clear();
        self.generic.borrow_mut().clear();
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
            // Timers, native async jobs and finalization callbacks are not capabilities the
            // guest has (see capabilities.rs); dropping them is allowed by the spec for
            // FinalizationRegistry and unreachable for the others.
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
            match next {
                Some(job) => {
                    job.call(context)?;
                }
                None => return Ok(()),
            }
        }
    }
}
