//! Every page of a list (`nextCursor` followed), and the two lists the session itself keeps
//! up: `tools/list` (the `x-mcp-header` parameters, the drift checks) and the catalog the
//! modules' drift checks use (prompts, resources, templates).

use std::collections::HashMap;

use mcp_bindgen_core::param_headers::param_headers;
use serde_json::{Value, json};

use super::Connection;
use super::request::request_plain;
use crate::Error;
use crate::client::drift::CatalogList;
use crate::client::transport::Transport;
use crate::client::{CallOptions, ToolList, lock};

/// Every page of a list method: the items under `key`, and the first page's caching hints.
pub(crate) struct Pages {
    pub(crate) items: Vec<Value>,
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) cache_scope: Option<String>,
}

/// Every page of the list method `method` (`tools/list`, `prompts/list`, ...), following
/// `nextCursor` (10,000 pages at most).
pub(crate) async fn pages<T: Transport>(
    conn: &Connection<T>,
    method: &str,
    key: &str,
) -> Result<Pages, Error> {
    let mut pages = Pages {
        items: Vec::new(),
        ttl_ms: None,
        cache_scope: None,
    };
    let mut cursor: Option<String> = None;
    let options = CallOptions::default();
    for page_number in 0..10_000 {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let mut page = request_plain(conn, method, params, &options).await?;
        if page_number == 0 {
            pages.ttl_ms = page.get("ttlMs").and_then(Value::as_u64);
            pages.cache_scope = page
                .get("cacheScope")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        // Moved out of the page, not copied: a list of a thousand tools is one parse.
        if let Some(Value::Array(items)) = page.get_mut(key).map(Value::take) {
            pages.items.extend(items);
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => return Ok(pages),
        }
    }
    Err(Error::transport(format!(
        "{method} did not end after 10000 pages"
    )))
}

/// `tools/list`, every page; where the transport mirrors `x-mcp-header` annotations, tools
/// with invalid ones are left out and the valid ones remembered for `tools/call`. The list
/// renews the drift checks.
pub(crate) async fn tool_list<T: Transport>(conn: &Connection<T>) -> Result<ToolList, Error> {
    let session = &conn.session;
    let epoch = session.drift.epoch();
    let pages = pages(conn, "tools/list", "tools").await?;
    let mut list = ToolList {
        tools: pages.items,
        ttl_ms: pages.ttl_ms,
        cache_scope: pages.cache_scope,
        rejected: Vec::new(),
    };
    if T::MIRRORS_HEADERS {
        let mut headers = HashMap::new();
        list.tools.retain(|tool| {
            let name = tool["name"].as_str().unwrap_or("").to_owned();
            match param_headers(&tool["inputSchema"]) {
                Ok(params) => {
                    headers.insert(name, params);
                    true
                }
                Err(invalid) => {
                    list.rejected.push((name, invalid.to_string()));
                    false
                }
            }
        });
        *lock(&conn.session.header_params) = headers;
    }
    session.drift.observe(
        &list,
        epoch,
        session.negotiated().is_some_and(|n| n.is_modern()),
    );
    Ok(list)
}

/// `prompts/list`, `resources/list`, `resources/templates/list` and `events/list`, every page of
/// each, for the drift checks of the modules' catalogs: those some module uses. A list
/// the server does not serve (`-32601`) is empty: what a module used from it is gone.
pub(crate) async fn catalog_list<T: Transport>(conn: &Connection<T>) -> Result<CatalogList, Error> {
    let session = &conn.session;
    let epoch = session.drift.catalog_epoch();
    let needs = session.drift.catalog_needs();
    let mut list = CatalogList::default();
    for (method, key, needed) in [
        ("prompts/list", "prompts", needs.prompts),
        ("resources/list", "resources", needs.resources),
        (
            "resources/templates/list",
            "resourceTemplates",
            needs.templates,
        ),
        ("events/list", "events", needs.events),
    ] {
        if !needed {
            continue;
        }
        let pages = match pages(conn, method, key).await {
            Ok(pages) => pages,
            Err(Error::Protocol { code: -32601, .. }) => continue,
            Err(e) => return Err(e),
        };
        list.ttl_ms = match (list.ttl_ms, pages.ttl_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match key {
            "prompts" => list.prompts = pages.items,
            "resources" => list.resources = pages.items,
            "events" => list.events = pages.items,
            _ => list.templates = pages.items,
        }
    }
    session.drift.observe_catalog(
        &list,
        epoch,
        session.negotiated().is_some_and(|n| n.is_modern()),
    );
    Ok(list)
}
