//! A request on its way out: the JSON-RPC message written once, straight from the caller's
//! params and the session's `_meta` keys, with no `Value` of the whole message built and no
//! copy of the arguments.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::Error;
use crate::era::meta;

/// A request ready to send: its text, and what a transport reads to frame it (the HTTP
/// headers of the 2026-07-28 era, the words of an error message).
#[derive(Debug)]
pub(crate) struct Outgoing<'a> {
    pub(crate) id: u64,
    pub(crate) method: &'a str,
    /// The params as the caller gave them, without the `_meta` keys the session adds.
    pub(crate) params: &'a Value,
    /// The JSON-RPC message, serialised.
    pub(crate) text: String,
    /// The era and version it is written for (`None`: before any, as `initialize` is).
    pub(crate) era: Option<super::Negotiated>,
    /// The arguments a modern `tools/call` mirrors as `Mcp-Param-{name}` headers (the tool's
    /// `x-mcp-header` annotations): each header's name and its encoded value.
    pub(crate) mirrored: Vec<(String, String)>,
}

/// The `_meta` keys a request carries besides the caller's own.
#[derive(Clone, Copy)]
pub(crate) struct MetaKeys<'a> {
    /// The 2026-07-28 era's keys: the version, the client's capabilities and its info.
    pub(crate) modern: Option<ModernKeys<'a>>,
    pub(crate) progress_token: Option<u64>,
}

/// The 2026-07-28 era's `_meta` keys of a request.
#[derive(Clone, Copy)]
pub(crate) struct ModernKeys<'a> {
    pub(crate) version: &'a str,
    pub(crate) capabilities: &'a Value,
    pub(crate) client_name: &'a str,
    pub(crate) client_version: &'a str,
}

impl<'a> Outgoing<'a> {
    /// Writes `{"jsonrpc":"2.0","id":…,"method":…,"params":…}` with `keys` merged into
    /// `params._meta` (which is made when the params have none). Params that are not an object
    /// (nor absent) are sent as they are, without the keys.
    pub(crate) fn new(
        id: u64,
        method: &'a str,
        params: &'a Value,
        keys: MetaKeys<'_>,
    ) -> Result<Self, Error> {
        let message = Message {
            id,
            method,
            params: Params { params, keys },
        };
        let text = serde_json::to_string(&message).map_err(|e| {
            Error::transport_source(format!("{method}: could not write the request"), e)
        })?;
        Ok(Outgoing {
            id,
            method,
            params,
            text,
            era: None,
            mirrored: Vec::new(),
        })
    }
}

impl MetaKeys<'_> {
    fn any(&self) -> bool {
        self.modern.is_some() || self.progress_token.is_some()
    }

    /// Whether the session writes `key` itself (so the caller's own entry gives way).
    fn writes(&self, key: &str) -> bool {
        (self.modern.is_some()
            && [
                meta::PROTOCOL_VERSION,
                meta::CLIENT_CAPABILITIES,
                meta::CLIENT_INFO,
            ]
            .contains(&key))
            || (self.progress_token.is_some() && key == meta::PROGRESS_TOKEN)
    }
}

struct Message<'a> {
    id: u64,
    method: &'a str,
    params: Params<'a>,
}

impl Serialize for Message<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("jsonrpc", "2.0")?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("method", self.method)?;
        map.serialize_entry("params", &self.params)?;
        map.end()
    }
}

struct Params<'a> {
    params: &'a Value,
    keys: MetaKeys<'a>,
}

impl Serialize for Params<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let empty = Map::new();
        let params = match self.params {
            Value::Object(params) => params,
            Value::Null => &empty,
            other => return other.serialize(serializer),
        };
        if !self.keys.any() {
            return params.serialize(serializer);
        }
        let mut map = serializer.serialize_map(None)?;
        let mut wrote_meta = false;
        for (key, value) in params {
            match value {
                Value::Object(own) if key == "_meta" => {
                    wrote_meta = true;
                    map.serialize_entry(
                        key,
                        &Meta {
                            own: Some(own),
                            keys: self.keys,
                        },
                    )?;
                }
                _ => {
                    // A `_meta` that is not an object stays as the caller wrote it.
                    wrote_meta |= key == "_meta";
                    map.serialize_entry(key, value)?;
                }
            }
        }
        if !wrote_meta {
            map.serialize_entry(
                "_meta",
                &Meta {
                    own: None,
                    keys: self.keys,
                },
            )?;
        }
        map.end()
    }
}

struct Meta<'a> {
    own: Option<&'a Map<String, Value>>,
    keys: MetaKeys<'a>,
}

impl Serialize for Meta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.own.into_iter().flatten() {
            if !self.keys.writes(key) {
                map.serialize_entry(key, value)?;
            }
        }
        if let Some(modern) = self.keys.modern {
            map.serialize_entry(meta::PROTOCOL_VERSION, modern.version)?;
            map.serialize_entry(meta::CLIENT_CAPABILITIES, modern.capabilities)?;
            map.serialize_entry(
                meta::CLIENT_INFO,
                &ClientInfo {
                    name: modern.client_name,
                    version: modern.client_version,
                },
            )?;
        }
        if let Some(token) = self.keys.progress_token {
            map.serialize_entry(meta::PROGRESS_TOKEN, &token)?;
        }
        map.end()
    }
}

#[derive(serde::Serialize)]
struct ClientInfo<'a> {
    name: &'a str,
    version: &'a str,
}

/// `tools/call echo`, `initialize`: what a request is, for messages.
pub(crate) fn describe(method: &str, params: &Value) -> String {
    match params["name"].as_str() {
        Some(name) if method == "tools/call" || method == "prompts/get" => {
            format!("{method} {name}")
        }
        _ => method.to_owned(),
    }
}

#[cfg(test)]
mod tests;
