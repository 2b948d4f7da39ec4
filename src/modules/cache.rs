//! Parsed modules by content hash, shared by every realm on this thread (one worker).
//!
//! A [`ParsedModule`] is syntax only: it holds its own interner and no scope of any realm,
//! so one parse serves every compartment that loads the same bytes, and a module loaded
//! again after `invalidate` with unchanged bytes. Each use still analyzes scopes against its
//! realm and compiles to bytecode there; only the parse is shared. Errors are not cached.

use std::cell::RefCell;
use std::collections::HashMap;

use boa_engine::JsResult;
use boa_engine::module::ParsedModule;
use sha2::{Digest, Sha256};

/// Source bytes the cache keeps parsed at most; least recently used entries go first. The
/// bound is on source size because Boa's syntax tree is large (56 times its source for a
/// dense module, natively).
pub const MAX_SOURCE_BYTES: usize = 256 * 1024;
/// Entries the cache keeps at most.
pub const MAX_ENTRIES: usize = 256;

/// What the cache did since the thread started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Loads served without parsing.
    pub hits: u64,
    /// Loads that parsed (and, on success, filled an entry).
    pub misses: u64,
    /// Entries dropped to stay within the bounds.
    pub evictions: u64,
    /// Entries held now.
    pub entries: usize,
    /// Source bytes of the entries held now.
    pub source_bytes: usize,
}

struct Entry {
    parsed: ParsedModule,
    size: usize,
    used: u64,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<[u8; 32], Entry>,
    clock: u64,
    stats: CacheStats,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::default();
}

/// The parsed module for `text`: from the cache, or parsed now and cached.
///
/// # Errors
/// The `SyntaxError` of source that is not a module.
pub fn parsed(text: &str) -> JsResult<ParsedModule> {
    let key: [u8; 32] = Sha256::digest(text.as_bytes()).into();
    let hit = CACHE.with_borrow_mut(|c| {
        c.clock += 1;
        let now = c.clock;
        let found = c.entries.get_mut(&key).map(|e| {
            e.used = now;
            e.parsed.clone()
        });
        if found.is_some() {
            c.stats.hits += 1;
        } else {
            c.stats.misses += 1;
        }
        found
    });
    if let Some(p) = hit {
        return Ok(p);
    }
    // Parsed outside the borrow: parsing runs no guest code, but keeps the cache free anyway.
    let parsed = crate::parse::module(text)?;
    CACHE.with_borrow_mut(|c| c.insert(key, parsed.clone(), text.len()));
    Ok(parsed)
}

/// Counters and size of this thread's cache.
#[must_use]
pub fn stats() -> CacheStats {
    CACHE.with_borrow(|c| c.stats)
}

impl Cache {
    fn insert(&mut self, key: [u8; 32], parsed: ParsedModule, size: usize) {
        if size > MAX_SOURCE_BYTES {
            return;
        }
        self.clock += 1;
        let entry = Entry {
            parsed,
            size,
            used: self.clock,
        };
        if let Some(old) = self.entries.insert(key, entry) {
            self.stats.source_bytes -= old.size;
        }
        self.stats.source_bytes += size;
        while self.stats.source_bytes > MAX_SOURCE_BYTES || self.entries.len() > MAX_ENTRIES {
            let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| *k)
            else {
                break;
            };
            if let Some(gone) = self.entries.remove(&oldest) {
                self.stats.source_bytes -= gone.size;
                self.stats.evictions += 1;
            }
        }
        self.stats.entries = self.entries.len();
    }
}
