//! The collector's heap, and when a dispose gives a realm's memory back.
//!
//! Boa's collector runs only when an allocation crosses its threshold, and every realm on a
//! thread shares its heap. A disposed realm's objects would stay until then, and their sweep
//! would land on whatever allocated next: a `new Realm()` paid for its predecessors.
//!
//! So a dispose collects once the realms disposed since the heap's last collection (by us
//! or by the threshold) account for at least half of its bytes. A collection's cost is
//! marking what lives plus freeing what does not; as far as the estimate below is right,
//! this rule never marks more than it frees, however large the realms that stay alive. A
//! lone realm's dispose frees it at once; disposing many in a row costs a few collections
//! over a heap that halves.
//!
//! In a worker, the dispose only counts the realm; the collection runs once the reply is
//! posted ([`collect_if_due`]), so the host's `dispose()` does not wait for it.
//!
//! A realm's share is an estimate: what building it allocated, plus what the heap grew by
//! during its entries and the one-pass builds of the values `set` and `call` gave it. It
//! errs both ways: a long-lived realm's collected temporaries stay counted (its dispose may
//! collect over a large live heap, once), and growth during one of Boa's own collections
//! counts net of what that freed (the memory then waits for Boa's threshold). README,
//! "Memory after dispose".

use std::cell::Cell;

#[derive(Clone, Copy, Default)]
struct Disposed {
    /// The estimated bytes of the realms disposed since collection number `epoch`.
    bytes: usize,
    epoch: usize,
}

thread_local! {
    static DISPOSED: Cell<Disposed> = const { Cell::new(Disposed { bytes: 0, epoch: 0 }) };
}

/// Bytes held by the engine's collector on this thread (every realm's objects, and garbage
/// not yet collected). Counts objects' headers and inline values, not the heap memory
/// those values own (string contents, array storage), so it is a lower bound.
#[must_use]
pub fn allocated_bytes() -> usize {
    boa_gc::allocated_bytes()
}

/// Whether this thread's heap is still there: at thread exit it is dropped before any
/// thread-local registered ahead of it, and a realm held in one must then leak its engine.
#[must_use]
pub fn alive() -> bool {
    boa_gc::heap_alive()
}

/// Collects the heap now. For tests that measure it: the realms of a thread share it.
#[doc(hidden)]
pub fn collect() {
    boa_gc::force_collect();
    DISPOSED.set(Disposed {
        bytes: 0,
        epoch: boa_gc::collections(),
    });
}

/// The realms disposed since the heap's last collection, by estimate.
fn disposed_since_collection() -> Disposed {
    let d = DISPOSED.get();
    let epoch = boa_gc::collections();
    if d.epoch == epoch {
        d
    } else {
        // The threshold collected since: the realms disposed before it are gone.
        Disposed { bytes: 0, epoch }
    }
}

/// A realm whose share is estimated at `bytes` was disposed; its engine is already dropped.
/// Nothing is collected until [`collect_if_due`].
pub(crate) fn realm_disposed(bytes: usize) {
    let mut d = disposed_since_collection();
    d.bytes = d.bytes.saturating_add(bytes);
    DISPOSED.set(d);
}

/// Collects if the realms disposed since the last collection are half the heap. Returns
/// whether it collected.
pub fn collect_if_due() -> bool {
    let d = disposed_since_collection();
    DISPOSED.set(d);
    let due = d.bytes > 0 && d.bytes.saturating_mul(2) >= allocated_bytes();
    if due {
        collect();
    }
    due
}
