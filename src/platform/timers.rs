//! `setTimeout`, `setInterval`, `clearTimeout`, `clearInterval`: timers whose callbacks are
//! held in Rust and run by the embedder's event loop, one metered entry per callback.

use std::collections::{BTreeMap, HashMap};

use boa_engine::{Context, JsNativeError, JsObject, JsResult, JsValue};
use web_time::{Duration, Instant};

/// A scheduled callback.
pub struct Timer {
    /// The guest function.
    pub callback: JsObject,
    /// Extra arguments.
    pub args: Vec<JsValue>,
    /// `Some` for `setInterval`.
    pub interval: Option<Duration>,
}

/// The timers of one realm, ordered by due time.
#[derive(Default)]
pub struct Timers {
    queue: BTreeMap<(Instant, u64), u32>,
    live: HashMap<u32, ((Instant, u64), Timer)>,
    next_id: u32,
    seq: u64,
}

/// Caps on timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimerLimits {
    /// Most live timers per realm.
    pub max_timers: usize,
    /// Shortest `setInterval` period; shorter ones are raised to it.
    pub min_interval: Duration,
}

impl Default for TimerLimits {
    fn default() -> Self {
        Self {
            max_timers: 1_000,
            min_interval: Duration::from_millis(10),
        }
    }
}

impl Timers {
    /// Schedules `timer` after `delay`; returns its id.
    ///
    /// # Errors
    /// A guest `RangeError` past `max_timers`.
    pub fn add(&mut self, timer: Timer, delay: Duration, limits: TimerLimits) -> JsResult<u32> {
        if self.live.len() >= limits.max_timers {
            return Err(JsNativeError::range()
                .with_message(format!("more than {} timers are live", limits.max_timers))
                .into());
        }
        self.next_id = self.next_id.wrapping_add(1).max(1);
        let id = self.next_id;
        self.schedule(id, timer, Instant::now() + delay);
        Ok(id)
    }

    fn schedule(&mut self, id: u32, timer: Timer, due: Instant) {
        self.seq += 1;
        let key = (due, self.seq);
        self.queue.insert(key, id);
        self.live.insert(id, (key, timer));
    }

    /// Cancels timer `id`; unknown ids are ignored, as in browsers.
    pub fn clear(&mut self, id: u32) {
        if let Some((key, _)) = self.live.remove(&id) {
            self.queue.remove(&key);
        }
    }

    /// Cancels everything (dispose, terminate, or an aborted computation).
    pub fn clear_all(&mut self) {
        self.queue.clear();
        self.live.clear();
    }

    /// Time until the earliest timer is due (zero if overdue).
    pub fn next_delay(&self) -> Option<Duration> {
        self.queue
            .keys()
            .next()
            .map(|(due, _)| due.saturating_duration_since(Instant::now()))
    }

    /// Takes the earliest timer due by `now`. An interval is rescheduled before its callback
    /// runs, so the callback can clear it.
    pub fn pop_due(&mut self, now: Instant) -> Option<(u32, JsObject, Vec<JsValue>)> {
        let (&key, &id) = self.queue.iter().next()?;
        if key.0 > now {
            return None;
        }
        self.queue.remove(&key);
        let (_, timer) = self.live.remove(&id)?;
        let out = (id, timer.callback.clone(), timer.args.clone());
        if let Some(period) = timer.interval {
            self.schedule(id, timer, now + period);
        }
        Some(out)
    }

    /// Live timer count.
    #[must_use]
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether no timer is live.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }
}

/// Reads `setTimeout(handler, delay, ...args)` arguments.
///
/// Invariant: the handler must be a function. A string handler would be compiled by
/// browsers; here it is a `TypeError` and is never evaluated anywhere.
pub fn parse_args(
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<(JsObject, Duration, Vec<JsValue>)> {
    let callback = match args.first().and_then(JsValue::as_callable) {
        Some(f) => f.clone(),
        None => {
            return Err(JsNativeError::typ()
                .with_message("timer handler must be a function (strings are never evaluated)")
                .into());
        }
    };
    let delay = match args.get(1) {
        Some(v) => v.to_number(context)?,
        None => 0.0,
    };
    let delay = if delay.is_finite() && delay > 0.0 {
        Duration::from_secs_f64(delay.min(2_147_483_647.0) / 1000.0)
    } else {
        Duration::ZERO
    };
    Ok((callback, delay, args.iter().skip(2).cloned().collect()))
}
