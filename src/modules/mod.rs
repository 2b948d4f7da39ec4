//! ES modules in the guest: the principal-scoped policy that decides what may be loaded.
//! `loader` keeps the module map, serves the engine and asks the host for sources.

pub mod loader;
pub mod policy;
