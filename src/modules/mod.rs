//! ES modules in the guest: the principal-scoped policy that decides what may be loaded.
//! The loader and broker that use it are built on top (see the modules issue).

pub mod policy;
