//! The guest's module map and loader. Sources never come from the engine: the host provides
//! them (after the policy allowed each URL), the loader only serves what is already here.
//!
//! Loading is "preload, then link": an import first gathers its whole static graph (and the
//! literal `import('…')` targets it can see) from the host, then links and evaluates
//! synchronously. A dynamic import of a computed specifier waits: the loader asks the host
//! for the module and the import stays pending (our engine patch `DeferredImport`) until
//! the module's graph is here, then resumes in a metered entry.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use boa_engine::module::{
    DeferredImport, Module, ModuleLoader, ModuleRequest, Referrer, SyntheticModuleInitializer,
};
use boa_engine::object::builtins::JsArray;
use boa_engine::{Context, JsNativeError, JsObject, JsResult, JsString, JsValue, js_string};

use super::policy::{Grant, Policy, Resolved, TokenKind, TrustedModule};
use crate::error::SandboxError;

/// A module source the guest needs and the host must fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    /// Canonical URL.
    pub url: String,
    /// Whether the broker may attach the principal's credentials (own or readable realm).
    pub credentials: bool,
    /// The realm prefix the credentials are for, if any.
    pub realm: Option<String>,
    /// `sha384-…` the bytes must match, for pinned packages.
    pub integrity: Option<String>,
}

/// One request of a module: whether it is a dynamic `import()`, and how it resolved.
type Edge = (bool, Result<Resolved, SandboxError>);

/// Dynamic imports one realm may have waiting for the host at once; more reject at once.
const MAX_DEFERRED: usize = 256;

/// Marker on denial errors the loader throws, so the realm can report the typed code.
pub const DENIED_MARKER: &str = "[SANDBOX_POLICY_DENIED]";

/// The module state of one realm.
#[derive(Default)]
pub struct Modules {
    policy: RefCell<Policy>,
    /// Parsed modules by canonical URL (and trusted modules by specifier).
    map: RefCell<HashMap<String, Module>>,
    /// Their source text, to place link errors.
    sources: RefCell<HashMap<String, String>>,
    /// Requests of each parsed module, resolved, with whether each is a dynamic `import()`.
    edges: RefCell<HashMap<String, Vec<Edge>>>,
    /// Load failures (fetch errors, syntax errors, integrity mismatches) by URL.
    failed: RefCell<HashMap<String, SandboxError>>,
    /// Requested from the host, not yet provided.
    inflight: RefCell<HashSet<String>>,
    outbox: RefCell<Vec<Fetch>>,
    /// Tokens of trusted modules: identity → (specifier, export).
    tokens: RefCell<Vec<(JsObject, String, String)>>,
    /// Entry modules the host imported and that evaluated, by URL.
    evaluated: RefCell<HashSet<String>>,
    /// The card runtime, once something needed it.
    cards: RefCell<Option<crate::cards::Runtime>>,
    /// The URL the loader just asked the host for, for the dynamic import that missed it.
    missed: RefCell<Option<String>>,
    /// Dynamic imports waiting for their module, with its URL.
    deferred: RefCell<Vec<(String, DeferredImport)>>,
}

impl Modules {
    /// Module state under `policy`.
    #[must_use]
    pub fn new(policy: Policy) -> Self {
        Self {
            policy: RefCell::new(policy),
            ..Self::default()
        }
    }

    /// The policy in force.
    #[must_use]
    pub fn policy(&self) -> Policy {
        self.policy.borrow().clone()
    }

    /// Replaces the policy. Every module resolved under the old one is evicted (coarse, but
    /// no module stays loaded on a decision the new policy might not make); returns the
    /// URLs evicted. Trusted modules stay: their tokens keep their identity.
    pub fn set_policy(&self, policy: Policy) -> Vec<String> {
        *self.policy.borrow_mut() = policy;
        let trusted: Vec<String> = self
            .policy
            .borrow()
            .trusted()
            .iter()
            .map(|t| t.specifier.clone())
            .collect();
        let mut gone: Vec<String> = self
            .map
            .borrow()
            .keys()
            .chain(self.failed.borrow().keys())
            .filter(|u| !trusted.contains(u))
            .cloned()
            .collect();
        for u in &gone {
            self.map.borrow_mut().remove(u);
            self.failed.borrow_mut().remove(u);
        }
        self.edges.borrow_mut().clear();
        self.evaluated.borrow_mut().clear();
        gone.sort();
        gone.dedup();
        gone
    }

    /// Fetches the host must perform, in request order.
    pub fn take_fetches(&self) -> Vec<Fetch> {
        std::mem::take(&mut *self.outbox.borrow_mut())
    }

    /// The trusted export an object is the token of, if it is one of this realm's tokens.
    #[must_use]
    pub fn token_of(&self, object: &JsObject) -> Option<(String, String)> {
        self.tokens
            .borrow()
            .iter()
            .find(|(o, _, _)| o == object)
            .map(|(_, m, e)| (m.clone(), e.clone()))
    }

    /// Asks for `resolved` if it is neither here, failed nor in flight.
    pub fn request(&self, resolved: &Resolved) {
        let url = &resolved.url;
        if matches!(resolved.grant, Grant::Trusted)
            || self.map.borrow().contains_key(url)
            || self.failed.borrow().contains_key(url)
            || !self.inflight.borrow_mut().insert(url.clone())
        {
            return;
        }
        let (realm, integrity) = match &resolved.grant {
            Grant::Own { realm } | Grant::Readable { realm } => (Some(realm.clone()), None),
            Grant::Package { integrity } => (None, Some(integrity.clone())),
            Grant::Trusted => (None, None),
        };
        self.outbox.borrow_mut().push(Fetch {
            url: url.clone(),
            credentials: resolved.credentials(),
            realm,
            integrity,
        });
    }

    /// Takes the host's answer for `url`: parses it, resolves its requests and asks for the
    /// new ones. Failures are remembered and reported by the imports that need them.
    pub fn provide(
        &self,
        url: &str,
        source: std::result::Result<Vec<u8>, String>,
        context: &mut Context,
    ) {
        self.inflight.borrow_mut().remove(url);
        let resolved = match self.policy.borrow().resolve(url, None) {
            Ok(r) if r.url == url => r,
            _ => {
                self.fail(
                    url,
                    SandboxError::new(
                        crate::ErrorCode::Protocol,
                        format!("{url} was not requested"),
                    ),
                );
                return;
            }
        };
        let bytes = match source {
            Ok(b) => b,
            Err(message) => {
                let mut e = SandboxError::new(
                    crate::ErrorCode::PolicyDenied,
                    format!("loading {url} failed: {message}"),
                );
                e.details.path = Some(url.to_owned());
                e.details.guest_message = Some(message);
                self.fail(url, e);
                return;
            }
        };
        if let Err(e) = self.policy.borrow().verify(&resolved, &bytes) {
            self.fail(url, e);
            return;
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let path = std::path::PathBuf::from(url);
        let module = match super::cache::parsed(&text)
            .and_then(|parsed| Module::from_parsed(&parsed, Some(path), None, context))
        {
            Ok(m) => m,
            Err(e) => {
                self.fail(url, syntax_error(url, &e));
                return;
            }
        };
        let mut edges = Vec::new();
        for (specifier, dynamic) in requests(&text) {
            let r = self.policy.borrow().resolve(&specifier, Some(url));
            if let Ok(ok) = &r {
                self.request(ok);
            }
            edges.push((dynamic, r));
        }
        self.edges.borrow_mut().insert(url.to_owned(), edges);
        self.map.borrow_mut().insert(url.to_owned(), module);
        self.sources.borrow_mut().insert(url.to_owned(), text);
    }

    fn fail(&self, url: &str, error: SandboxError) {
        self.failed.borrow_mut().insert(url.to_owned(), error);
    }

    /// Whether the graph under `url` is settled: every reachable allowed module is parsed
    /// or failed. Returns the first failure on the way, if any.
    pub fn settled(&self, url: &str) -> Option<Result<(), SandboxError>> {
        let mut seen = HashSet::new();
        let mut stack = vec![url.to_owned()];
        while let Some(u) = stack.pop() {
            if !seen.insert(u.clone()) {
                continue;
            }
            if let Some(e) = self.failed.borrow().get(&u) {
                return Some(Err(e.clone()));
            }
            if !self.map.borrow().contains_key(&u) {
                return None;
            }
            if let Some(edges) = self.edges.borrow().get(&u) {
                for (_, r) in edges {
                    match r {
                        // The edges come from a textual scan, which also matches text in
                        // strings and comments: a denied or failed one does not fail the
                        // graph here. If the module really imports it, linking asks the
                        // loader, which refuses with the same typed error.
                        Err(_) => {}
                        Ok(r) if matches!(r.grant, Grant::Trusted) => {}
                        Ok(r) if self.failed.borrow().contains_key(&r.url) => {}
                        Ok(r) => stack.push(r.url.clone()),
                    }
                }
            }
        }
        Some(Ok(()))
    }

    /// The parsed module at `url`.
    #[must_use]
    pub fn get(&self, url: &str) -> Option<Module> {
        self.map.borrow().get(url).cloned()
    }

    /// Drops `url` and, transitively, every module that imports it.
    pub fn invalidate(&self, url: &str) -> Vec<String> {
        let mut gone = vec![url.to_owned()];
        let mut i = 0;
        while i < gone.len() {
            let target = gone[i].clone();
            let importers: Vec<String> = self
                .edges
                .borrow()
                .iter()
                .filter(|(_, e)| {
                    e.iter()
                        .any(|(_, r)| r.as_ref().is_ok_and(|r| r.url == target))
                })
                .map(|(k, _)| k.clone())
                .filter(|k| !gone.contains(k))
                .collect();
            gone.extend(importers);
            i += 1;
        }
        for u in &gone {
            self.map.borrow_mut().remove(u);
            self.edges.borrow_mut().remove(u);
            self.failed.borrow_mut().remove(u);
            self.sources.borrow_mut().remove(u);
            self.evaluated.borrow_mut().remove(u);
        }
        gone
    }

    /// Dynamic imports whose module graph settled (loaded or failed): ready to resume.
    pub fn take_ready_imports(&self) -> Vec<DeferredImport> {
        let waiting = std::mem::take(&mut *self.deferred.borrow_mut());
        let mut ready = Vec::new();
        for (url, import) in waiting {
            if self.settled(&url).is_some() {
                ready.push(import);
            } else {
                self.deferred.borrow_mut().push((url, import));
            }
        }
        ready
    }

    /// The load failure a link error reports (the loader hands a failed module's error to
    /// the engine as text), so it keeps its code and location.
    #[must_use]
    pub fn failure_reported_as(&self, message: &str) -> Option<SandboxError> {
        self.failed
            .borrow()
            .values()
            .find(|e| message.contains(&e.to_string()))
            .cloned()
    }

    /// Records that the host's import of `url` evaluated.
    pub fn mark_evaluated(&self, url: &str) {
        self.evaluated.borrow_mut().insert(url.to_owned());
    }

    /// The namespace of `url`, if the host imported it and it evaluated.
    #[must_use]
    pub fn namespace(&self, url: &str, context: &mut Context) -> Option<JsObject> {
        if !self.evaluated.borrow().contains(url) {
            return None;
        }
        self.get(url).map(|m| m.namespace(context))
    }

    /// Whether a started card runtime holds model patches no call took. Runs no guest code,
    /// so it is cheap enough to ask after every message.
    pub fn card_patches_waiting(&self, context: &mut Context) -> bool {
        self.cards
            .borrow()
            .as_ref()
            .is_some_and(|r| r.has_patches(context))
    }

    /// The card runtime, evaluated on first use.
    ///
    /// # Errors
    /// If evaluating it fails.
    pub fn card_runtime(&self, context: &mut Context) -> JsResult<crate::cards::Runtime> {
        if let Some(r) = self.cards.borrow().as_ref() {
            return Ok(r.clone());
        }
        let r = crate::cards::Runtime::create(context)?;
        *self.cards.borrow_mut() = Some(r.clone());
        Ok(r)
    }

    /// Where a link error about `name` (an import binding) comes from: the first import
    /// statement naming it in the graph under `entry`, as (url, line, column).
    #[must_use]
    pub fn locate_import(&self, entry: &str, name: &str) -> Option<(String, u32, u32)> {
        let sources = self.sources.borrow();
        let mut seen = HashSet::new();
        let mut stack = vec![entry.to_owned()];
        while let Some(u) = stack.pop() {
            if !seen.insert(u.clone()) {
                continue;
            }
            if let Some(src) = sources.get(&u) {
                for (i, line) in src.lines().enumerate() {
                    let t = line.trim_start();
                    if (t.starts_with("import") || t.starts_with("export"))
                        && t.contains(" from ")
                        && let Some(col) = find_word(line, name)
                    {
                        return Some((u, u32::try_from(i + 1).unwrap_or(u32::MAX), col));
                    }
                }
            }
            if let Some(edges) = self.edges.borrow().get(&u) {
                stack.extend(
                    edges
                        .iter()
                        .filter_map(|(_, r)| r.as_ref().ok().map(|r| r.url.clone())),
                );
            }
        }
        None
    }

    fn trusted_module(&self, t: &TrustedModule, context: &mut Context) -> JsResult<Module> {
        if let Some(m) = self.map.borrow().get(&t.specifier) {
            return Ok(m.clone());
        }
        let exports = JsObject::with_null_proto();
        for (name, kind) in &t.exports {
            let token = make_token(name, *kind, context)?;
            exports.create_data_property_or_throw(
                JsString::from(name.as_str()),
                token.clone(),
                context,
            )?;
            self.tokens
                .borrow_mut()
                .push((token, t.specifier.clone(), name.clone()));
        }
        let names: Vec<JsString> = t
            .exports
            .iter()
            .map(|(n, _)| JsString::from(n.as_str()))
            .collect();
        self.synthetic(&t.specifier, &names, exports, context)
    }

    /// The card-API module: the card runtime's exports under `specifier`.
    fn card_module(&self, specifier: &str, context: &mut Context) -> JsResult<Module> {
        if let Some(m) = self.map.borrow().get(specifier) {
            return Ok(m.clone());
        }
        let runtime = self.card_runtime(context)?;
        let names = runtime.export_names(context)?;
        self.synthetic(specifier, &names, runtime.api, context)
    }

    fn synthetic(
        &self,
        specifier: &str,
        names: &[JsString],
        exports: JsObject,
        context: &mut Context,
    ) -> JsResult<Module> {
        let init = SyntheticModuleInitializer::from_copy_closure_with_captures(
            |module, exports: &JsObject, context| {
                for key in exports.own_property_keys(context)? {
                    if let boa_engine::property::PropertyKey::String(name) = key {
                        let v = exports.get(name.clone(), context)?;
                        module.set_export(&name, v)?;
                    }
                }
                Ok(())
            },
            exports,
        );
        let m = Module::synthetic(
            names,
            init,
            Some(std::path::PathBuf::from(specifier)),
            None,
            context,
        );
        self.map
            .borrow_mut()
            .insert(specifier.to_owned(), m.clone());
        Ok(m)
    }
}

/// An inert token: a class with only name, length and prototype; a function returning an
/// inert descriptor; or a frozen empty object.
fn make_token(name: &str, kind: TokenKind, context: &mut Context) -> JsResult<JsObject> {
    // `name` is an identifier (checked by the policy), so it is safe in source text.
    let src = match kind {
        TokenKind::Class => format!("(class {name} {{}})"),
        TokenKind::Function => format!(
            "(function {name}(...args) {{ return Object.freeze({{ token: '{name}', args: Object.freeze(args) }}); }})"
        ),
        TokenKind::Value => "Object.freeze(Object.create(null))".to_owned(),
    };
    let v = crate::parse::eval(&src, None, context)?;
    v.as_object().ok_or_else(|| {
        JsNativeError::typ()
            .with_message("token creation failed")
            .into()
    })
}

/// Static import specifiers and literal `import('…')` targets (flagged `true`), in order of
/// appearance. A textual scan: a match inside a string or comment only causes an extra
/// request for a URL the policy allows anyway.
#[must_use]
pub fn requests(source: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let bytes = source.as_bytes();
    let mut push = |s: (String, bool)| {
        if !out.iter().any(|(x, _)| *x == s.0) {
            out.push(s);
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        // `from '…'` / `import '…'` / `import('…')`
        let rest = &source[i..];
        let hit = if rest.starts_with("from") || rest.starts_with("import") {
            let kw = if rest.starts_with("from") { 4 } else { 6 };
            let before_ok = i == 0 || !is_ident(bytes[i - 1]);
            let after = rest[kw..].trim_start();
            let dynamic = kw == 6 && after.starts_with('(');
            let after = after.strip_prefix('(').map_or(after, str::trim_start);
            if before_ok {
                quoted(after).map(|q| (q, dynamic))
            } else {
                None
            }
        } else {
            None
        };
        if let Some(s) = hit {
            push(s);
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// 1-based column of `word` as a whole identifier in `line`.
fn find_word(line: &str, word: &str) -> Option<u32> {
    let bytes = line.as_bytes();
    let mut from = 0;
    while let Some(at) = line[from..].find(word) {
        let start = from + at;
        let end = start + word.len();
        let before = start == 0 || !is_ident(bytes[start - 1]);
        let after = end >= bytes.len() || !is_ident(bytes[end]);
        if before && after {
            return u32::try_from(line[..start].chars().count() + 1).ok();
        }
        from = end;
    }
    None
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.'
}

fn quoted(s: &str) -> Option<String> {
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let end = s[1..].find(q)?;
    let body = &s[1..=end];
    (!body.contains('\n')).then(|| body.to_owned())
}

fn syntax_error(url: &str, err: &boa_engine::JsError) -> SandboxError {
    let message = err
        .as_native()
        .map(|n| n.message().to_string())
        .unwrap_or_else(|| err.to_string());
    let mut e = SandboxError::new(
        crate::ErrorCode::Syntax,
        format!("syntax error in {url}: {message}"),
    );
    e.details.name = Some("SyntaxError".into());
    e.details.guest_message = Some(message.clone());
    if let Some((line, column)) = crate::realm::parse_position(&message) {
        e.details.location = Some(crate::error::Location {
            filename: url.to_owned(),
            line,
            column,
        });
    }
    e
}

/// The engine-facing loader: serves parsed modules, synthesizes trusted ones, denies the rest.
pub struct Loader(pub Rc<Modules>);

impl ModuleLoader for Loader {
    async fn load_imported_module(
        self: Rc<Self>,
        referrer: Referrer,
        request: ModuleRequest,
        context: &std::cell::RefCell<&mut Context>,
    ) -> JsResult<Module> {
        *self.0.missed.borrow_mut() = None;
        let specifier = request.specifier().to_std_string_lossy();
        let base = match &referrer {
            Referrer::Module(m) => m.path().and_then(|p| p.to_str()).map(str::to_owned),
            _ => None,
        };
        let modules = &self.0;
        let resolved = modules
            .policy
            .borrow()
            .resolve(&specifier, base.as_deref())
            .map_err(|e| {
                // Catchable by the guest; the marker lets the realm report the typed code.
                JsNativeError::typ().with_message(format!("{} {DENIED_MARKER}", e.message))
            })?;
        if matches!(resolved.grant, Grant::Trusted)
            && modules.policy.borrow().is_card_api(&resolved.url)
        {
            return modules.card_module(&resolved.url, &mut context.borrow_mut());
        }
        if matches!(resolved.grant, Grant::Trusted) {
            let t = modules
                .policy
                .borrow()
                .trusted()
                .iter()
                .find(|t| t.specifier == resolved.url)
                .cloned()
                .ok_or_else(|| JsNativeError::typ().with_message("trusted module vanished"))?;
            return modules.trusted_module(&t, &mut context.borrow_mut());
        }
        if let Some(e) = modules.failed.borrow().get(&resolved.url) {
            // As browsers do: a module that does not parse is a SyntaxError, one that could
            // not be fetched or verified a TypeError.
            let error = if e.code == crate::ErrorCode::Syntax {
                JsNativeError::syntax()
            } else {
                JsNativeError::typ()
            };
            return Err(error.with_message(e.to_string()).into());
        }
        modules.get(&resolved.url).ok_or_else(|| {
            modules.request(&resolved);
            *modules.missed.borrow_mut() = Some(resolved.url.clone());
            JsNativeError::typ()
                .with_message(format!("module {} is not loaded yet", resolved.url))
                .into()
        })
    }

    fn defer_dynamic_import(
        self: Rc<Self>,
        _error: &boa_engine::JsError,
        import: DeferredImport,
    ) -> Option<DeferredImport> {
        // A computed `import(x)` of an allowed module that is not here yet waits for the
        // host to fetch it; denials and failures reject at once.
        let Some(url) = self.0.missed.borrow_mut().take() else {
            return Some(import);
        };
        if self.0.deferred.borrow().len() >= MAX_DEFERRED {
            return Some(import);
        }
        self.0.deferred.borrow_mut().push((url, import));
        None
    }

    fn init_import_meta(
        self: Rc<Self>,
        import_meta: &JsObject,
        module: &Module,
        context: &mut Context,
    ) {
        // Invariant: import.meta is { url } only — no loader, no resolve hook.
        let url = module.path().and_then(|p| p.to_str()).unwrap_or_default();
        let _ = import_meta.create_data_property_or_throw(
            js_string!("url"),
            JsString::from(url),
            context,
        );
    }
}

/// The export names of an evaluated module, for the host.
///
/// # Errors
/// If the namespace cannot be read.
pub fn export_names(module: &Module, context: &mut Context) -> JsResult<JsValue> {
    let ns = module.namespace(context);
    let keys = ns.own_property_keys(context)?;
    let names = keys.into_iter().filter_map(|k| match k {
        boa_engine::property::PropertyKey::String(s) => Some(JsValue::from(s)),
        _ => None,
    });
    Ok(JsArray::from_iter(names, context).into())
}
