//! The collector's heap, and when a dispose gives a realm's memory back.
//!
//! Boa's collector runs only when an allocation crosses its threshold, and every realm on a
//! thread shares its heap. A disposed realm's objects would stay until then, and their sweep
//! would land on whatever allocated next: a `new Realm()` paid for its predecessors. So a
//! dispose collects once the realms disposed since the last collection here are at least
//! as many as those still live, or their bytes at least half the heap. A lone realm's
//! dispose frees it at once; disposing many realms in a row costs a few collections, each
//! over a heap that halves, not one collection per realm.

use std::cell::Cell;

#[derive(Clone, Copy, Default)]
struct Counts {
    /// Realms with an engine on this thread.
    live: usize,
    /// Realms disposed since the last collection here, and what building them allocated.
    disposed: usize,
    disposed_bytes: usize,
}

thread_local! {
    static COUNTS: Cell<Counts> = const {
        Cell::new(Counts { live: 0, disposed: 0, disposed_bytes: 0 })
    };
}

/// Bytes held by the engine's collector on this thread (every realm's objects, and garbage
/// not yet collected). Counts objects' headers and inline values, not the heap memory
/// those values own (string contents, array storage), so it is a lower bound.
#[must_use]
pub fn allocated_bytes() -> usize {
    boa_gc::allocated_bytes()
}

/// A realm's engine was built.
pub(crate) fn realm_built() {
    let mut c = COUNTS.get();
    c.live += 1;
    COUNTS.set(c);
}

/// A realm's engine was dropped. `disposed`: by a dispose, which allocated `built_bytes`
/// to build; `None` when the engine failed, and a collection may not be safe.
pub(crate) fn realm_dropped(disposed: Option<usize>) {
    let mut c = COUNTS.get();
    c.live = c.live.saturating_sub(1);
    if let Some(bytes) = disposed {
        c.disposed += 1;
        c.disposed_bytes = c.disposed_bytes.saturating_add(bytes);
        if c.disposed >= c.live || c.disposed_bytes.saturating_mul(2) >= allocated_bytes() {
            boa_gc::force_collect();
            c.disposed = 0;
            c.disposed_bytes = 0;
        }
    }
    COUNTS.set(c);
}
