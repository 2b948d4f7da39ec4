//! The principal-scoped module policy. Every specifier is resolved and checked here, on
//! parsed URLs, before anything is requested. The audit's confused deputy sent credentials
//! for any realm the user could read and reached any origin; here, nothing unlisted is
//! ever requested, and credentials go only to this principal's own or granted realms.

use sha2::{Digest, Sha384};
use url::Url;

use crate::error::{ErrorCode, Result, SandboxError};
use crate::platform::text::{decode_base64, encode_base64};
use crate::value::{Graph, Object, Text, Value};

/// A realm prefix: an http(s) origin plus a path ending on a segment boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealmPrefix {
    url: Url,
}

impl RealmPrefix {
    /// Parses and validates a prefix.
    ///
    /// # Errors
    /// `SANDBOX_INVALID_OPTIONS` for an empty, non-URL, non-http(s), credentialed,
    /// query- or fragment-carrying prefix, or one that does not end with `/`.
    pub fn parse(option: &str, raw: &str) -> Result<Self> {
        let bad = |why: &str| SandboxError::invalid_option(option, format!("`{raw}` {why}"));
        if raw.is_empty() {
            return Err(bad("is empty"));
        }
        let url = Url::parse(raw).map_err(|e| bad(&unparsable(raw, e)))?;
        if !matches!(url.scheme(), "https" | "http") {
            return Err(bad("is not an http(s) URL"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(bad("has no host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("carries credentials"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(bad("has a query or fragment"));
        }
        // Invariant: prefixes end on a segment boundary, so `/realm-a/` never matches
        // `/realm-a-evil/`.
        if !raw.ends_with('/') || !url.path().ends_with('/') {
            return Err(bad("must end with `/` (a path segment boundary)"));
        }
        Ok(Self { url })
    }

    /// Whether `url` is under this prefix: same origin, and a path starting with the
    /// prefix's path.
    #[must_use]
    pub fn contains(&self, url: &Url) -> bool {
        url.origin() == self.url.origin() && url.path().starts_with(self.url.path())
    }

    /// The prefix as a string.
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }
}

/// A pinned external package: one exact URL and its SRI integrity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    url: Url,
    sha384: Vec<u8>,
}

/// What kind of module a resolved URL is, which decides how it may be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// Under one of the principal's own realms: loaded with the principal's credentials.
    Own {
        /// The realm prefix.
        realm: String,
    },
    /// Under a realm the host lets this principal read: loaded with credentials for it.
    Readable {
        /// The realm prefix.
        realm: String,
    },
    /// A pinned package: loaded without credentials, checked against its integrity.
    Package {
        /// `sha384-...`
        integrity: String,
    },
    /// A trusted host module, provided as a synthetic module of inert tokens.
    Trusted,
}

/// A resolved, allowed module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The canonical URL (or the trusted specifier).
    pub url: String,
    /// Why it is allowed.
    pub grant: Grant,
}

impl Resolved {
    /// Whether the broker may attach credentials (only for this principal's realms).
    #[must_use]
    pub fn credentials(&self) -> bool {
        matches!(self.grant, Grant::Own { .. } | Grant::Readable { .. })
    }
}

/// A trusted specifier and its exports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedModule {
    /// The specifier guests import it by.
    pub specifier: String,
    /// Export names with their token kind.
    pub exports: Vec<(String, TokenKind)>,
}

/// What an inert token stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A subclassable constructor carrying only `name`, `length` and `prototype`.
    Class,
    /// A callable returning an inert descriptor.
    Function,
    /// A plain token (a host component).
    Value,
}

/// The policy of one principal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Policy {
    own: Vec<RealmPrefix>,
    readable: Vec<RealmPrefix>,
    packages: Vec<Package>,
    trusted: Vec<TrustedModule>,
    /// Specifiers that import the card runtime's API.
    card_api: Vec<String>,
}

/// Why a host did not parse, in words for an error message.
///
/// Host names must be ASCII: the IDNA back end is the stub (`idna_adapter` 1.0, pinned in
/// Cargo.toml), which keeps 45 KB of gzipped Unicode tables out of the wasm. A non-ASCII
/// host fails closed here. A punycode label (`xn--…`) is accepted if it decodes; the stub
/// does not check the rest of UTS 46, so a label a browser would refuse fails closed at the
/// fetch instead.
fn bad_host(raw: &str) -> &'static str {
    if raw.is_ascii() {
        "an invalid host name (punycode labels must decode; percent-encoded hosts are refused)"
    } else {
        "a host name that is not ASCII (write it in punycode: `xn--…`)"
    }
}

/// Why a URL did not parse, in words for an error message.
fn unparsable(raw: &str, error: url::ParseError) -> String {
    match error {
        url::ParseError::IdnaError => format!("has {}", bad_host(raw)),
        e => format!("is not a URL ({e})"),
    }
}

fn denied(specifier: &str, reason: &str) -> SandboxError {
    let mut e = SandboxError::new(
        ErrorCode::PolicyDenied,
        format!("import of `{specifier}` denied: {reason}"),
    );
    e.details.path = Some(specifier.to_owned());
    e.details.guest_message = Some(reason.to_owned());
    e
}

fn entries<'g>(graph: &'g Graph, value: &Value, what: &str) -> Result<&'g [(Text, Value)]> {
    match value {
        Value::Undefined => Ok(&[]),
        Value::Object(id) => match graph.get(*id) {
            Some(Object::Plain(e)) => Ok(e),
            _ => Err(SandboxError::invalid_option(what, "must be a plain object")),
        },
        _ => Err(SandboxError::invalid_option(what, "must be a plain object")),
    }
}

fn strings(graph: &Graph, value: &Value, what: &str) -> Result<Vec<String>> {
    match value {
        Value::Undefined => Ok(Vec::new()),
        Value::String(t) => Ok(vec![t.to_lossy()]),
        Value::Object(id) => match graph.get(*id) {
            Some(Object::Array { elements, .. }) => elements
                .iter()
                .map(|(_, v)| match v {
                    Value::String(t) => Ok(t.to_lossy()),
                    _ => Err(SandboxError::invalid_option(what, "must hold strings")),
                })
                .collect(),
            _ => Err(SandboxError::invalid_option(
                what,
                "must be a string or an array of strings",
            )),
        },
        _ => Err(SandboxError::invalid_option(
            what,
            "must be a string or an array of strings",
        )),
    }
}

impl Policy {
    /// Parses `{ realms, readable, packages: { url: integrity }, trusted: { specifier:
    /// { export: 'class' | 'function' | 'value' } } }`.
    ///
    /// # Errors
    /// `SANDBOX_INVALID_OPTIONS` for unknown keys and for malformed or too-broad entries.
    pub fn parse(graph: &Graph, value: &Value) -> Result<Self> {
        let mut policy = Policy::default();
        for (key, v) in entries(graph, value, "modules")? {
            match key.to_lossy().as_str() {
                "realms" => {
                    for raw in strings(graph, v, "modules.realms")? {
                        policy.own.push(RealmPrefix::parse("modules.realms", &raw)?);
                    }
                }
                "readable" => {
                    for raw in strings(graph, v, "modules.readable")? {
                        policy
                            .readable
                            .push(RealmPrefix::parse("modules.readable", &raw)?);
                    }
                }
                "packages" => {
                    for (url, integrity) in entries(graph, v, "modules.packages")? {
                        let raw = url.to_lossy();
                        let Value::String(integrity) = integrity else {
                            return Err(SandboxError::invalid_option(
                                "modules.packages",
                                "integrity must be a string",
                            ));
                        };
                        policy
                            .packages
                            .push(Package::parse(&raw, &integrity.to_lossy())?);
                    }
                }
                "trusted" => {
                    for (specifier, exports) in entries(graph, v, "modules.trusted")? {
                        let specifier = specifier.to_lossy();
                        if specifier.is_empty() {
                            return Err(SandboxError::invalid_option(
                                "modules.trusted",
                                "a specifier is empty",
                            ));
                        }
                        let mut list = Vec::new();
                        for (name, kind) in entries(graph, exports, "modules.trusted")? {
                            let kind = match kind {
                                Value::String(t) => match t.to_lossy().as_str() {
                                    "class" => TokenKind::Class,
                                    "function" => TokenKind::Function,
                                    "value" => TokenKind::Value,
                                    other => {
                                        return Err(SandboxError::invalid_option(
                                            "modules.trusted",
                                            format!(
                                                "export kind `{other}` is not class, function or value"
                                            ),
                                        ));
                                    }
                                },
                                _ => {
                                    return Err(SandboxError::invalid_option(
                                        "modules.trusted",
                                        "export kinds must be strings",
                                    ));
                                }
                            };
                            let name = name.to_lossy();
                            if !crate::options::is_identifier(&name) && name != "default" {
                                return Err(SandboxError::invalid_option(
                                    "modules.trusted",
                                    format!("`{name}` is not an export name"),
                                ));
                            }
                            list.push((name, kind));
                        }
                        policy.trusted.push(TrustedModule {
                            specifier,
                            exports: list,
                        });
                    }
                }
                "cardApi" => {
                    for specifier in strings(graph, v, "modules.cardApi")? {
                        if specifier.is_empty() {
                            return Err(SandboxError::invalid_option(
                                "modules.cardApi",
                                "a specifier is empty",
                            ));
                        }
                        policy.card_api.push(specifier);
                    }
                }
                other => {
                    return Err(SandboxError::invalid_option(
                        &format!("modules.{other}"),
                        "is not a known module option",
                    ));
                }
            }
        }
        Ok(policy)
    }

    /// A policy from prefixes and packages, for hosts building one in Rust.
    ///
    /// # Errors
    /// As [`RealmPrefix::parse`] and [`Package::parse`].
    pub fn new(own: &[&str], readable: &[&str], packages: &[(&str, &str)]) -> Result<Self> {
        Ok(Self {
            own: own
                .iter()
                .map(|r| RealmPrefix::parse("modules.realms", r))
                .collect::<Result<_>>()?,
            readable: readable
                .iter()
                .map(|r| RealmPrefix::parse("modules.readable", r))
                .collect::<Result<_>>()?,
            packages: packages
                .iter()
                .map(|(u, i)| Package::parse(u, i))
                .collect::<Result<_>>()?,
            trusted: Vec::new(),
            card_api: Vec::new(),
        })
    }

    /// The trusted modules.
    #[must_use]
    pub fn trusted(&self) -> &[TrustedModule] {
        &self.trusted
    }

    /// Makes `specifier` import the card runtime's API.
    pub fn serve_card_api(&mut self, specifier: &str) {
        self.card_api.push(specifier.to_owned());
    }

    /// Whether `specifier` is a card-API specifier.
    #[must_use]
    pub fn is_card_api(&self, specifier: &str) -> bool {
        self.card_api.iter().any(|s| s == specifier)
    }

    /// Adds a trusted module (tests and hosts building a policy in Rust).
    pub fn trust(&mut self, module: TrustedModule) {
        self.trusted.push(module);
    }

    /// Resolves `specifier` imported by the module at `referrer` and checks it.
    ///
    /// # Errors
    /// `SANDBOX_POLICY_DENIED` with the specifier (in `path`) and the reason (in
    /// `guestMessage`) for anything not allowed. Nothing is requested for a denial.
    pub fn resolve(&self, specifier: &str, referrer: Option<&str>) -> Result<Resolved> {
        if let Some(t) = self.trusted.iter().find(|t| t.specifier == specifier) {
            return Ok(Resolved {
                url: t.specifier.clone(),
                grant: Grant::Trusted,
            });
        }
        if self.is_card_api(specifier) {
            return Ok(Resolved {
                url: specifier.to_owned(),
                grant: Grant::Trusted,
            });
        }
        let relative = specifier.starts_with("./")
            || specifier.starts_with("../")
            || specifier.starts_with('/');
        let url = if relative {
            let Some(base) = referrer else {
                return Err(denied(
                    specifier,
                    "a relative specifier needs a referring module",
                ));
            };
            let base = Url::parse(base)
                .map_err(|_| denied(specifier, "the referring module has no URL"))?;
            // Scheme-relative `//host/x` would leave the referrer's origin.
            if specifier.starts_with("//") {
                return Err(denied(
                    specifier,
                    "scheme-relative specifiers are not allowed",
                ));
            }
            base.join(specifier)
                .map_err(|_| denied(specifier, "not a valid URL"))?
        } else {
            match Url::parse(specifier) {
                Ok(u) => u,
                Err(url::ParseError::IdnaError) => {
                    return Err(denied(specifier, bad_host(specifier)));
                }
                Err(_) => {
                    return Err(denied(
                        specifier,
                        "a bare specifier that is not a trusted module",
                    ));
                }
            }
        };
        if !matches!(url.scheme(), "https" | "http") {
            return Err(denied(specifier, "only http(s) modules are loaded"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(denied(specifier, "URLs with credentials are not loaded"));
        }
        // Encoded separators and dots are refused: a server that decodes them would see a
        // different path than the one checked here.
        let lower = url.path().to_ascii_lowercase();
        if lower.contains("%2f")
            || lower.contains("%5c")
            || lower.contains("%2e")
            || url.path().contains('\\')
        {
            return Err(denied(
                specifier,
                "encoded path separators or dots are not allowed",
            ));
        }
        let mut canonical = url.clone();
        canonical.set_fragment(None);
        if let Some(p) = self.own.iter().find(|p| p.contains(&canonical)) {
            return Ok(Resolved {
                url: canonical.into(),
                grant: Grant::Own {
                    realm: p.as_str().to_owned(),
                },
            });
        }
        if let Some(p) = self.readable.iter().find(|p| p.contains(&canonical)) {
            return Ok(Resolved {
                url: canonical.into(),
                grant: Grant::Readable {
                    realm: p.as_str().to_owned(),
                },
            });
        }
        if let Some(p) = self.packages.iter().find(|p| p.url == canonical) {
            return Ok(Resolved {
                url: canonical.into(),
                grant: Grant::Package {
                    integrity: format!("sha384-{}", encode_base64(&p.sha384)),
                },
            });
        }
        Err(denied(
            specifier,
            &format!(
                "{} is not in this principal's realms or pinned packages",
                canonical.as_str()
            ),
        ))
    }

    /// Checks fetched bytes against a pinned package's integrity.
    ///
    /// # Errors
    /// `SANDBOX_POLICY_DENIED` on a mismatch.
    pub fn verify(&self, resolved: &Resolved, bytes: &[u8]) -> Result<()> {
        let Grant::Package { .. } = resolved.grant else {
            return Ok(());
        };
        let Some(p) = self
            .packages
            .iter()
            .find(|p| p.url.as_str() == resolved.url)
        else {
            return Err(denied(&resolved.url, "not a pinned package"));
        };
        if Sha384::digest(bytes).as_slice() == p.sha384.as_slice() {
            Ok(())
        } else {
            Err(denied(
                &resolved.url,
                "its content does not match the pinned integrity",
            ))
        }
    }
}

impl Package {
    /// Parses a pinned package.
    ///
    /// # Errors
    /// `SANDBOX_INVALID_OPTIONS` for a URL that is not an exact https URL, or an integrity
    /// that is not `sha384-` followed by 48 base64-encoded bytes.
    pub fn parse(raw: &str, integrity: &str) -> Result<Self> {
        let bad =
            |why: &str| SandboxError::invalid_option("modules.packages", format!("`{raw}` {why}"));
        let url = Url::parse(raw).map_err(|e| bad(&unparsable(raw, e)))?;
        // The integrity pins the content, so http is acceptable (loopback servers in tests).
        if !matches!(url.scheme(), "https" | "http") || url.host_str().is_none_or(str::is_empty) {
            return Err(bad("must be an http(s) URL"));
        }
        if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
            return Err(bad("must not carry credentials or a fragment"));
        }
        let digest = integrity
            .strip_prefix("sha384-")
            .and_then(|b| decode_base64(&b.encode_utf16().collect::<Vec<u16>>()))
            .filter(|d| d.len() == 48)
            .ok_or_else(|| bad("needs a `sha384-<base64>` integrity"))?;
        Ok(Self {
            url,
            sha384: digest,
        })
    }
}

/// `sha384-<base64>` of `bytes`, as SRI writes it.
#[must_use]
pub fn integrity_of(bytes: &[u8]) -> String {
    format!("sha384-{}", encode_base64(&Sha384::digest(bytes)))
}
