//! ES modules in the guest: the principal-scoped policy that decides what may be loaded.
//! `loader` keeps the module map, serves the engine and asks the host for sources; `cache`
//! keeps parsed sources by content hash for every realm of the worker.

pub mod cache;
pub mod loader;
pub mod policy;
