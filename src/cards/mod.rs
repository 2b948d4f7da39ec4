//! The card runtime: guest-side JavaScript (`runtime.js`) that gives card modules their
//! base classes, field declarations and templates, and answers the host's card operations
//! with plain data. It runs with the guest's authority only; the boundary stays the clone
//! on the way out and the host shim's sanitiser on the way to the DOM.

use boa_engine::{Context, JsNativeError, JsObject, JsResult, JsString, js_string};

/// The runtime's source, evaluated once per realm on first use.
pub const SOURCE: &str = include_str!("runtime.js");

/// Where the runtime's frames say they come from in guest stacks.
pub const FILENAME: &str = "isolated-realm:card-runtime";

/// A host card operation, and whether it takes the namespace of a card module first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `(ns, type, data)` → serialized instance.
    Create,
    /// `(ns, type, data)` → serialized instance (the reload path).
    Load,
    /// `({ url: ns }, [instance…])` → instances or per-card errors, in order.
    LoadMany,
    /// `(id, format)` → render.
    Render,
    /// `([[id, format]…])` → renders or per-card errors.
    RenderMany,
    /// `(id, actionId, event)` → `{ render, patches, changed }`, maybe a promise.
    Dispatch,
    /// `(ns, url)` → `{ url, exports }`.
    Describe,
    /// `(id)` → serialized instance.
    Serialize,
    /// `(id)` → whether it was loaded.
    Drop,
    /// `()` → `{ patches, changed }` not yet delivered (writes of an action that failed).
    Flush,
}

impl Op {
    /// The closed set of operation names the protocol accepts.
    pub const ALL: [(&'static str, Op); 10] = [
        ("create", Op::Create),
        ("load", Op::Load),
        ("loadMany", Op::LoadMany),
        ("render", Op::Render),
        ("renderMany", Op::RenderMany),
        ("dispatch", Op::Dispatch),
        ("describe", Op::Describe),
        ("serialize", Op::Serialize),
        ("drop", Op::Drop),
        ("flush", Op::Flush),
    ];

    /// The operation called `name`, if any.
    #[must_use]
    pub fn parse(name: &str) -> Option<Op> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, o)| *o)
    }

    /// Its name in the runtime's `ops` object.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, o)| *o == self)
            .map_or("", |(n, _)| n)
    }

    /// Which card-module namespaces the runtime gets ahead of the arguments.
    #[must_use]
    pub fn modules(self) -> Modules {
        match self {
            Op::Create | Op::Load | Op::Describe => Modules::One,
            Op::LoadMany => Modules::Table,
            _ => Modules::None,
        }
    }
}

/// The card modules an operation is about, named by the host in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modules {
    /// None; naming one is a protocol error.
    None,
    /// Exactly one: its namespace is the first argument.
    One,
    /// Any number: a null-prototype table from URL to namespace is the first argument.
    Table,
}

/// The evaluated runtime of one realm.
#[derive(Clone)]
pub struct Runtime {
    /// The exports of the card-API module.
    pub api: JsObject,
    /// The host operations; never reachable from guest code.
    pub ops: JsObject,
    /// `{ count }`: patches queued and not yet taken; never reachable from guest code.
    pub outbox: JsObject,
}

impl Runtime {
    /// Evaluates the runtime in `context`.
    ///
    /// # Errors
    /// If evaluation fails (a budget trip, or a guest that broke the intrinsics first).
    pub fn create(context: &mut Context) -> JsResult<Self> {
        let path = std::path::PathBuf::from(FILENAME);
        let v = crate::parse::eval(SOURCE, Some(&path), context)?;
        let pair = v
            .as_object()
            .ok_or_else(|| JsNativeError::typ().with_message("card runtime failed to start"))?;
        let get = |k: &str, context: &mut Context| -> JsResult<JsObject> {
            pair.get(JsString::from(k), context)?
                .as_object()
                .ok_or_else(|| {
                    JsNativeError::typ()
                        .with_message("card runtime failed to start")
                        .into()
                })
        };
        Ok(Self {
            api: get("api", context)?,
            ops: get("ops", context)?,
            outbox: get("outbox", context)?,
        })
    }

    /// Whether model patches wait in the runtime. Reads an own data property of an object
    /// only the runtime holds, so no guest code runs.
    pub fn has_patches(&self, context: &mut Context) -> bool {
        self.outbox
            .get(js_string!("count"), context)
            .ok()
            .and_then(|v| v.as_number())
            .is_some_and(|n| n > 0.0)
    }

    /// Export names of the card-API module.
    ///
    /// # Errors
    /// If the api object cannot be read.
    pub fn export_names(&self, context: &mut Context) -> JsResult<Vec<JsString>> {
        Ok(self
            .api
            .own_property_keys(context)?
            .into_iter()
            .filter_map(|k| match k {
                boa_engine::property::PropertyKey::String(s) => Some(s),
                _ => None,
            })
            .collect())
    }
}
