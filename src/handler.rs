//! The host handler endowment (`exposeHandlerAs`), synchronous or asynchronous.
//!
//! Sync: the guest's call blocks on the host function (same thread, e.g. the sync Realm).
//! Async: the guest gets a promise; the call is queued for the host (across a worker
//! boundary) and settled later by [`crate::Realm::settle`].
//! See [`crate::capabilities::HANDLER`] for the invariant.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use boa_engine::builtins::promise::ResolvingFunctions;
use boa_engine::object::builtins::{JsArray, JsPromise};
use boa_engine::{Context, JsNativeError, JsResult, JsString, JsValue, NativeFunction};

use crate::clone::to_guest::native_error;
use crate::clone::{Captured, CloneError, from_guest, to_guest};
use crate::realm::{HandlerFailure, HostHandler};
use crate::value::{CloneLimits, Graph};

/// Most async host calls one realm may have waiting at once.
pub const MAX_PENDING_HOST_CALLS: usize = 1024;

/// A guest call to the async host handler, waiting to be settled.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCall {
    /// Id to settle it with.
    pub call: u64,
    /// The guest's arguments, as one cloned array.
    pub args: Graph,
}

/// Queue and resolvers of async host calls.
#[derive(Default)]
pub struct AsyncCalls {
    next: Cell<u64>,
    outbox: RefCell<Vec<HostCall>>,
    waiting: RefCell<HashMap<u64, ResolvingFunctions>>,
}

impl AsyncCalls {
    /// Calls made since the last take, in order.
    pub fn take(&self) -> Vec<HostCall> {
        std::mem::take(&mut *self.outbox.borrow_mut())
    }

    /// The resolvers of a waiting call, removing it.
    pub fn resolvers(&self, call: u64) -> Option<ResolvingFunctions> {
        self.waiting.borrow_mut().remove(&call)
    }

    /// Forgets every waiting call (their guest promises stay pending forever).
    pub fn clear(&self) {
        self.outbox.borrow_mut().clear();
        self.waiting.borrow_mut().clear();
    }
}

/// How the host answers.
#[derive(Clone)]
pub enum Handler {
    /// Blocking call into a host function.
    Sync(Rc<dyn HostHandler>),
    /// Queued for the host; the guest gets a promise.
    Async(Rc<AsyncCalls>),
}

pub(crate) struct Slot {
    handler: Handler,
    captured: Captured,
    clone_limits: CloneLimits,
}

thread_local! {
    // Boa native closures must be `Copy`, so they carry only the realm id.
    static SLOTS: RefCell<HashMap<u64, Rc<Slot>>> = RefCell::new(HashMap::new());
}

/// Installs the handler function under `name` for realm `id`.
///
/// # Errors
/// If the global cannot be defined (never for a fresh realm).
pub fn install(
    context: &mut Context,
    id: u64,
    name: &str,
    handler: Handler,
    captured: Captured,
    clone_limits: CloneLimits,
) -> JsResult<()> {
    let body =
        NativeFunction::from_copy_closure(move |_this, args, context| call(id, args, context));
    context.register_global_builtin_callable(JsString::from(name), 0, body)?;
    let slot = Slot {
        handler,
        captured,
        clone_limits,
    };
    SLOTS.with(|s| s.borrow_mut().insert(id, Rc::new(slot)));
    Ok(())
}

/// Takes realm `id`'s handler state out, for the caller to drop (or, at thread exit, leak).
/// `None` once the registry itself is gone, at thread exit.
#[must_use]
pub(crate) fn uninstall(id: u64) -> Option<Rc<Slot>> {
    SLOTS
        .try_with(|s| s.borrow_mut().remove(&id))
        .ok()
        .flatten()
}

fn call(id: u64, args: &[JsValue], context: &mut Context) -> JsResult<JsValue> {
    let Some(slot) = SLOTS.with(|s| s.borrow().get(&id).cloned()) else {
        return Err(JsNativeError::typ()
            .with_message("the host handler is gone")
            .into());
    };
    let array = JsArray::from_iter(args.iter().cloned(), context);
    let graph = match from_guest(&array.into(), &slot.captured, slot.clone_limits, context) {
        Ok(g) => g,
        Err(CloneError::Guest(e)) => return Err(e),
        // A catchable DataCloneError-like TypeError naming the argument path.
        Err(CloneError::Boundary(e)) => {
            let message = e.message.replacen('$', "arguments", 1);
            return Err(JsNativeError::typ()
                .with_message(format!("{message} [{}]", e.code))
                .into());
        }
    };
    match &slot.handler {
        Handler::Sync(handler) => match handler.call(graph) {
            Ok(result) => to_guest(&result, context),
            Err(failure) => Err(failure_error(failure).into()),
        },
        Handler::Async(calls) => {
            if calls.waiting.borrow().len() >= MAX_PENDING_HOST_CALLS {
                return Err(JsNativeError::range()
                    .with_message(format!(
                        "more than {MAX_PENDING_HOST_CALLS} host calls are waiting"
                    ))
                    .into());
            }
            let (promise, resolvers) = JsPromise::new_pending(context);
            let call = calls.next.get();
            calls.next.set(call + 1);
            calls.waiting.borrow_mut().insert(call, resolvers);
            calls
                .outbox
                .borrow_mut()
                .push(HostCall { call, args: graph });
            Ok(promise.into())
        }
    }
}

/// The guest error a host failure becomes: only a standard name and a message.
pub fn failure_error(failure: HandlerFailure) -> JsNativeError {
    native_error(failure.name).with_message(failure.message)
}
