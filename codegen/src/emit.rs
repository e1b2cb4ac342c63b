//! Emission: plans, signatures and the types typify made in, the module's syntax out: the
//! `Client<C>` with a method pair per tool (quoted once, cloned per tool), the input schemas,
//! and the `types` module.

use std::path::Path;

use heck::ToShoutySnakeCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;

use crate::config::ServerConfig;
use crate::diagnostic::Diagnostic;
use crate::docs::{self, ITEM_DOC_WIDTH, METHOD_DOC_WIDTH, doc_at};
use crate::error::Error;
use crate::imports;
use crate::literal::json_literal;
use crate::model::{Capture, TaskSupport, Tool};
use crate::naming;
use crate::plan::Plan;
use crate::signature::{Args, Output, Signature};

/// The module's syntax: the client (or, with no capture, only the contracts' types) around
/// `type_items`, the items typify and the post-passes made; `signatures` has one per plan, in
/// order; `file_name` is where the inputs came from, for an internal error's message.
pub(crate) fn file(
    config: &ServerConfig,
    capture: Option<&Capture>,
    file_name: &Path,
    (plans, signatures): (&[Plan<'_>], &[Signature]),
    events: &[crate::events::EventPlan<'_>],
    type_items: Vec<syn::Item>,
) -> Result<syn::File, Error> {
    let server_name = config
        .name
        .clone()
        .or_else(|| {
            capture
                .and_then(|c| c.server.as_ref())
                .map(|s| s.title.clone().unwrap_or_else(|| s.name.clone()))
        })
        .unwrap_or_else(|| config.module.clone());
    debug_assert_eq!(plans.len(), signatures.len(), "a signature per plan");
    let has_types = !type_items.is_empty();
    let does_not_parse = |e: syn::Error| {
        Diagnostic::new(
            file_name,
            format!("internal error: generated code does not parse: {e}"),
        )
        .help("please report this with the capture attached")
    };
    let (tokens, methods) = match capture {
        Some(capture) => client(
            config,
            capture,
            &server_name,
            (plans, signatures),
            events,
            has_types,
        )
        .map_err(does_not_parse)?,
        None => (types_only(config, &server_name), Vec::new()),
    };
    let mut file: syn::File = syn::parse2(tokens).map_err(does_not_parse)?;
    if !methods.is_empty() {
        // The methods are syntax trees already: they go into the last inherent `impl`,
        // `Client`'s methods, after parsing.
        match file.items.iter_mut().rev().find_map(|item| match item {
            syn::Item::Impl(i) if i.trait_.is_none() => Some(i),
            _ => None,
        }) {
            Some(client) => client.items.extend(methods),
            None => {
                return Err(Diagnostic::new(
                    file_name,
                    "internal error: the generated code has no `impl` for the client's methods",
                )
                .help("please report this with the capture attached")
                .into());
            }
        }
    }
    if has_types {
        // The types are syntax trees already: put them in place rather than through tokens
        // and a second parse.
        let types = file.items.iter_mut().find_map(|item| match item {
            syn::Item::Mod(m) if m.ident == "types" => m.content.as_mut(),
            _ => None,
        });
        match types {
            Some((_, items)) => items.extend(type_items),
            None => {
                return Err(Diagnostic::new(
                    file_name,
                    "internal error: the generated code has no `types` module for its types",
                )
                .help("please report this with the capture attached")
                .into());
            }
        }
    }
    imports::shorten(&mut file.items);
    Ok(file)
}

/// `#[doc = ".."]` attributes, one per line, so prettyplease prints `///` lines.
fn doc(text: &str) -> TokenStream {
    doc_at(text, ITEM_DOC_WIDTH)
}

/// The module's inner doc, and its one lint setting: a crate uses the tools it needs, so what
/// it leaves unused (other tools, the fake, types) must not warn there, as in any generated
/// bindings (bindgen's and progenitor's alike).
fn inner_doc(text: &str) -> TokenStream {
    let lines = docs::doc_lines(&docs::wrap(text, ITEM_DOC_WIDTH));
    quote! {
        #(#![doc = #lines])*
        #![allow(dead_code)]
    }
}

/// The client's tokens (with an empty `types` module when there are types) and its methods.
fn client(
    config: &ServerConfig,
    capture: &Capture,
    server_name: &str,
    (plans, signatures): (&[Plan<'_>], &[Signature]),
    events: &[crate::events::EventPlan<'_>],
    has_types: bool,
) -> syn::Result<(TokenStream, Vec<syn::ImplItem>)> {
    let module_doc = inner_doc(&about(config, capture, server_name, plans.len()));
    let templates = Templates::new();
    let mut methods = Vec::new();
    let mut fake = Fake::default();
    for (plan, signature) in plans.iter().zip(signatures) {
        let fill = tool_methods(plan, signature);
        fake.add(&fill);
        methods.extend(templates.fill(&fill));
    }
    let InputSchemas {
        statics: schemas,
        of_tool: schema_of_tool,
    } = InputSchemas::new(plans);
    let mut taken = taken_names(&methods);
    let catalog = crate::catalog::emit(capture, &mut taken)?;
    methods.extend(catalog.methods);
    methods.extend(crate::events::methods(events, &mut taken)?);
    let catalog_items = catalog.items;
    let fake = fake.tokens(server_name, !events.is_empty());
    let names: Vec<&str> = plans.iter().map(|p| p.tool.name.as_str()).collect();
    let (provenance_doc, provenance) = provenance(capture, plans, &schema_of_tool);
    let tasks = if plans.iter().any(|p| p.tool.task_support().is_some()) {
        " A tool that runs as a task also has `tool_task`, which starts it and returns its [`mcp_bindgen::TaskHandle`]."
    } else {
        ""
    };
    let client_doc = doc(&format!(
        "Typed client for the {server_name} MCP server: one method per tool.\n\nEach `tool` method checks its arguments against the tool's input schema, calls the tool through the [`mcp_bindgen::ToolCaller`], and decodes the result; `tool_raw` returns the `CallToolResult` as sent.{tasks}"
    ));
    let schemas_mod = tool_modules(plans, &schemas, &schema_of_tool);
    let types_mod = types_module(config, plans, signatures, has_types);
    let tokens = quote! {
        #module_doc

        #types_mod

        #schemas_mod

        #catalog_items

        /// The tools this module was generated for, in the server's order.
        pub const TOOL_NAMES: &[&str] = &[#(#names),*];

        #provenance_doc
        pub static PROVENANCE: ::mcp_bindgen::Provenance = #provenance;

        #client_doc
        #[derive(Debug, Clone)]
        pub struct Client<C> {
            caller: C,
        }

        impl<C> Client<C> {
            /// A client that calls tools through `caller`.
            pub fn new(caller: C) -> Self {
                Client { caller }
            }

            /// The caller this client uses.
            pub fn caller(&self) -> &C {
                &self.caller
            }

            /// Gives the caller back.
            pub fn into_inner(self) -> C {
                self.caller
            }
        }

        impl<C: ::mcp_bindgen::ToolCaller> Client<C> {
            /// The last drift check's report: how the server's tools differ from those this
            /// module was generated from (`None` before the first call, and for callers that
            /// do not check).
            pub fn drift(&self) -> ::std::option::Option<::mcp_bindgen::DriftReport> {
                self.caller.drift(&PROVENANCE)
            }

            /// Checks now (one `tools/list`) whether the server's tools still serve this
            /// module, and returns what changed that its methods rely on: `None` when nothing
            /// did (and for callers that do not check); `drift()` keeps the last report either
            /// way. Calls check by themselves; this is for checking at start-up.
            pub async fn check_drift(
                &self,
            ) -> ::std::result::Result<
                ::std::option::Option<::mcp_bindgen::DriftReport>,
                ::mcp_bindgen::Error,
            > {
                self.caller.check_drift(&PROVENANCE).await
            }
        }

        #fake
    };
    Ok((tokens, methods))
}

/// The names the client's methods took, and those its inherent methods always take: the
/// prompt and resource methods get other ones.
fn taken_names(methods: &[syn::ImplItem]) -> std::collections::BTreeSet<String> {
    methods
        .iter()
        .filter_map(|m| match m {
            syn::ImplItem::Fn(f) => {
                Some(f.sig.ident.to_string().trim_start_matches("r#").to_owned())
            }
            _ => None,
        })
        .chain(
            ["new", "caller", "into_inner", "drift", "check_drift"]
                .into_iter()
                .map(str::to_owned),
        )
        .collect()
}

/// `PROVENANCE`'s doc and expression: the generator, the tools' digest and definitions (their
/// input schemas by reference to `schemas`, `schema_of_tool` naming each tool's), and the
/// catalog the module uses, if any.
fn provenance(
    capture: &Capture,
    plans: &[Plan<'_>],
    schema_of_tool: &[proc_macro2::Ident],
) -> (TokenStream, TokenStream) {
    let generator = concat!("mcp-bindgen ", env!("CARGO_PKG_VERSION"));
    let listed = || plans.iter().map(|p| &p.tool.raw);
    let digest = mcp_bindgen_core::digest::digest(listed());
    // The definitions without their input schemas, which `schemas` holds: once in the module.
    let without_schemas = mcp_bindgen_core::recorded::without_input_schemas(listed());
    let tools = json_literal(&mcp_bindgen_core::digest::canonical(&without_schemas));
    let schema_refs = schema_of_tool
        .iter()
        .map(|schema| quote!(&schemas::#schema));
    // The prompts, resources and templates the module's methods use, checked as tools are.
    // Skills are constants only (no method of the module reads one): `diff` compares them.
    let mut used = crate::diff::catalog_of(capture);
    used.skills.clear();
    // Calls in function form: prettyplease lays a method chain out as rustfmt would not.
    let tools_only = quote! {
        ::mcp_bindgen::Provenance::with_input_schemas(
            ::mcp_bindgen::Provenance::new(#generator, #digest, TOOL_NAMES, #tools),
            &[#(#schema_refs),*],
        )
    };
    if used.is_empty() {
        (
            doc(
                "What this module was generated from: the generator, and the digest and definitions of the tools its client calls. Before a call, the client transports compare it with the server's `tools/list` (see [`mcp_bindgen::drift`]).",
            ),
            tools_only,
        )
    } else {
        let (catalog_digest, catalog) = (used.digest(), json_literal(&used.canonical()));
        (
            doc(
                "What this module was generated from: the generator, and the digest and definitions of the tools its client calls and of the prompts, resources and resource templates it uses. Before a call, the client transports compare it with the server's lists (see [`mcp_bindgen::drift`]).",
            ),
            quote! {
                ::mcp_bindgen::Provenance::with_catalog(#tools_only, #catalog_digest, #catalog)
            },
        )
    }
}

/// The `schemas` module (`schemas`, the statics [`InputSchemas`] made) and the `tools`
/// module, one descriptor per tool; nothing for a module with no tools.
fn tool_modules(
    plans: &[Plan<'_>],
    schemas: &[TokenStream],
    schema_of_tool: &[proc_macro2::Ident],
) -> TokenStream {
    let descriptors = plans.iter().zip(schema_of_tool).map(|(plan, schema)| {
        let name = &plan.tool.name;
        let descriptor = tool_static(plan);
        let doc = doc_at(
            &format!("`{name}`: its name, its input schema, and this module's provenance."),
            METHOD_DOC_WIDTH,
        );
        quote! {
            #doc
            pub(super) static #descriptor: ::mcp_bindgen::ToolDescriptor =
                ::mcp_bindgen::ToolDescriptor::new(#name, &super::schemas::#schema, &super::PROVENANCE);
        }
    });
    if schemas.is_empty() {
        quote!()
    } else {
        quote! {
            /// The tools' input schemas, each written once: each call's arguments are checked
            /// against its tool's before the call is sent, and `PROVENANCE` records them.
            mod schemas {
                #(#schemas)*
            }

            /// One descriptor per tool, which its methods call through.
            mod tools {
                #(#descriptors)*
            }
        }
    }
}

/// The module's doc: the server, the inputs it was generated from, how to call it.
fn about(config: &ServerConfig, capture: &Capture, server_name: &str, tools: usize) -> String {
    let mut about = format!("Typed client for the {server_name} MCP server.\n\n");
    let capture_name = config
        .capture
        .as_ref()
        .unwrap_or(&capture.file)
        .to_string_lossy()
        .replace('\\', "/");
    let tools = if tools == 1 {
        "1 tool".to_owned()
    } else {
        format!("{tools} tools")
    };
    about.push_str(&format!(
        "Generated by mcp-bindgen from `{capture_name}`: {tools}"
    ));
    if !config.contracts.is_empty() {
        let contracts: Vec<String> = config
            .contracts
            .iter()
            .map(|p| format!("`{}`", p.to_string_lossy().replace('\\', "/")))
            .collect();
        about.push_str(&format!(
            " and the agent contracts {}",
            contracts.join(", ")
        ));
    }
    if let Some(server) = &capture.server {
        about.push_str(&format!(", server `{}`", server.name));
        if let Some(version) = server.version.as_deref().filter(|v| !v.is_empty()) {
            about.push_str(&format!(" {version}"));
        }
    }
    if let Some(version) = &capture.protocol_version {
        about.push_str(&format!(", protocol {version}"));
    }
    about.push_str(
        ".\n\nCall tools through [`Client`], which wraps any [`mcp_bindgen::ToolCaller`]. To test code that calls them without the server, implement [`Fake`] and hand `Client::new(Faked(fake))` to it.",
    );
    about
}

/// The static holding a tool's descriptor in the module `tools`, and (when no tool before it
/// has the same) its input schema in the module `schemas`: the method's name, in capitals.
fn tool_static(plan: &Plan<'_>) -> proc_macro2::Ident {
    format_ident!("{}", plan.method.to_shouty_snake_case())
}

/// The module's input schemas, each written once however many tools share it.
struct InputSchemas {
    /// The `schemas` module's statics.
    statics: Vec<TokenStream>,
    /// For each tool, in order, the static holding its schema.
    of_tool: Vec<proc_macro2::Ident>,
}

impl InputSchemas {
    fn new(plans: &[Plan<'_>]) -> Self {
        // Each distinct text, with the tools that share it; the static is named after the
        // first of them.
        let mut texts: Vec<(String, proc_macro2::Ident, Vec<&str>)> = Vec::new();
        let mut by_text = std::collections::HashMap::new();
        let mut of_tool = Vec::with_capacity(plans.len());
        for plan in plans {
            let json = serde_json::to_string(&plan.tool.input_schema).unwrap_or_default();
            let i = *by_text.entry(json.clone()).or_insert_with(|| {
                texts.push((json, tool_static(plan), Vec::new()));
                texts.len() - 1
            });
            texts[i].2.push(&plan.tool.name);
            of_tool.push(texts[i].1.clone());
        }
        let statics = texts
            .iter()
            .map(|(json, ident, tools)| {
                let names: Vec<String> = tools.iter().map(|t| format!("`{t}`")).collect();
                let text = match names.as_slice() {
                    [one] => format!("The input schema of {one}, as the server sent it."),
                    [init @ .., last] => format!(
                        "The input schema of {} and {last}, the same for each, as the server sent it.",
                        init.join(", ")
                    ),
                    [] => String::new(),
                };
                let doc = doc_at(&text, METHOD_DOC_WIDTH);
                let literal = json_literal(json);
                quote! {
                    #doc
                    pub(super) static #ident: ::mcp_bindgen::ToolSchema =
                        ::mcp_bindgen::ToolSchema::new(#literal);
                }
            })
            .collect();
        InputSchemas { statics, of_tool }
    }
}

/// A tool's method pair, to fill into the templates.
fn tool_methods<'a>(plan: &Plan<'a>, signature: &Signature) -> Placeholders<'a> {
    let tool = plan.tool;
    let name = &tool.name;
    let output: syn::Type = match signature.output.name() {
        Some(output) => {
            let output = format_ident!("{output}");
            syn::parse_quote!(types::#output)
        }
        None => syn::parse_quote!(::serde_json::Value),
    };
    let args = match &signature.args {
        Args::None => None,
        Args::Typed(ty) | Args::Map(ty) => Some(format_ident!("{ty}")),
    };
    let raw_doc = doc_attrs(&format!(
        "Calls `{name}` like [`Self::{}`], without unwrapping the result envelope.\n\nA result with `isError: true` is still an [`mcp_bindgen::Error::Tool`].",
        plan.method
    ));
    let task = tool.task_support().map(|support| {
        let (takes, plain) = match support {
            TaskSupport::Optional => (
                "may run as a task",
                format!("[`Self::{}`] calls it plainly", plan.method),
            ),
            TaskSupport::Required => (
                "runs only as a task",
                format!("[`Self::{}`] starts one and waits for it", plan.method),
            ),
        };
        let doc = doc_attrs(&format!(
            "Starts `{name}` as a task and returns its handle at once: [`TaskHandle::wait`](mcp_bindgen::TaskHandle::wait) gives what [`Self::{}`] returns, polling at the server's interval; the handle also tells where the task stands, answers what it asks, and cancels it.\n\nThe tool {takes} ({plain}). A server that answers at once, or a caller that runs no tasks, gives a handle holding the result. A task outlives its connection: keep [`TaskHandle::id`](mcp_bindgen::TaskHandle::id), and after a reconnect `McpClient::task(\"{name}\", id).typed()` finds it again.",
            plan.method
        ));
        (format_ident!("{}_task", plan.method), support, doc)
    });
    Placeholders {
        method: naming::ident(&plan.method),
        tool: tool_static(plan),
        raw: format_ident!("{}_raw", plan.method),
        task,
        name,
        args,
        output,
        method_doc: doc_attrs(&method_doc(plan, signature)),
        raw_doc,
    }
}

/// A tool method's doc: the tool's description, its name and title, the server's hints, and
/// where the result type comes from.
fn method_doc(plan: &Plan<'_>, signature: &Signature) -> String {
    let tool = plan.tool;
    let name = &tool.name;
    let mut text = tool
        .description
        .as_deref()
        .map(docs::dedent)
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| format!("Calls the `{name}` tool."));
    text.push_str(&format!("\n\nMCP tool `{name}`"));
    if tool.display_name() != name {
        text.push_str(&format!(" (\"{}\")", tool.display_name()));
    }
    text.push('.');
    let hints = hints(tool);
    if !hints.is_empty() {
        text.push_str(&format!(" Server hints: {hints}."));
    }
    if tool.task_support() == Some(TaskSupport::Required) {
        text.push_str(&format!(
            " The server runs `{name}` only as a task: this method starts one and waits for it, polling at the server's interval ([`Self::{}_task`] returns the handle instead).",
            plan.method
        ));
    }
    match signature.output {
        Output::Json => {
            text.push_str(" The server declares no result type, so the result is JSON.");
        }
        Output::Contracts(_) => text.push_str(" The result type comes from the agent contracts."),
        Output::Schema(_) => {}
    }
    text
}

/// The `types` module, empty but for the arguments typed as JSON objects (typify's items go in
/// after parsing, [`file()`]); nothing when it would be empty.
fn types_module(
    config: &ServerConfig,
    plans: &[Plan<'_>],
    signatures: &[Signature],
    has_types: bool,
) -> TokenStream {
    let arg_aliases: Vec<TokenStream> = plans
        .iter()
        .zip(signatures)
        .filter_map(|(p, signature)| match &signature.args {
            Args::Map(ty) => {
                let ty = format_ident!("{ty}");
                let d = format!(
                    " Arguments of `{}`, as a JSON object: no Rust type could be generated for its schema, which is still checked before each call.",
                    p.tool.name
                );
                Some(quote! {
                    #[doc = #d]
                    pub type #ty = ::serde_json::Map<::std::string::String, ::serde_json::Value>;
                })
            }
            _ => None,
        })
        .collect();
    if !has_types && arg_aliases.is_empty() {
        return quote!();
    }
    let types_doc = if config.contracts.is_empty() {
        doc("Argument and result types of the tools.")
    } else {
        doc("Argument and result types of the tools, and the agent contracts' types and constants.")
    };
    quote! {
        #types_doc
        // typify writes `Default` for enums by hand, and keeps variants' fields inline;
        // what a schema does not describe has no doc comment.
        #[allow(clippy::derivable_impls, clippy::large_enum_variant, missing_docs)]
        pub mod types {
            #(#arg_aliases)*
        }
    }
}

/// The module's typed fake: the `Fake` trait (a method per tool, failing as not faked until a
/// test writes it) and the `Faked` adapter's dispatch, built tool by tool.
#[derive(Default)]
struct Fake {
    methods: Vec<TokenStream>,
    arms: Vec<TokenStream>,
}

impl Fake {
    fn add(&mut self, fill: &Placeholders<'_>) {
        let Placeholders {
            method,
            name,
            output,
            ..
        } = fill;
        let method_name = method.to_string();
        let method_name = method_name.trim_start_matches("r#");
        let doc = docs::doc_lines(&docs::wrap(
            &format!(
                "Answers `{name}` in place of the server, with what [`Client::{method_name}`] returns; an `Err` is the tool's failure (`isError: true`). Unless implemented, fails as not faked."
            ),
            METHOD_DOC_WIDTH,
        ));
        let doc = quote! { #(#[doc = #doc])* };
        let not_faked = quote! {
            async { Err(::mcp_bindgen::fake::not_faked(#name, #method_name)) }
        };
        let returns = quote! {
            impl ::std::future::Future<Output = ::std::result::Result<#output, ::mcp_bindgen::ToolError>> + ::std::marker::Send
        };
        match &fill.args {
            Some(args) => {
                self.methods.push(quote! {
                    #doc
                    fn #method(&self, args: types::#args) -> #returns {
                        let _ = args;
                        #not_faked
                    }
                });
                self.arms.push(quote! {
                    #name => schemas.answer(name, arguments, |args| fake.#method(args)).await,
                });
            }
            None => {
                self.methods.push(quote! {
                    #doc
                    fn #method(&self) -> #returns {
                        #not_faked
                    }
                });
                self.arms.push(quote! {
                    #name => schemas.answer(name, arguments, |_: ::mcp_bindgen::NoArguments| fake.#method()).await,
                });
            }
        }
    }

    /// Nothing for a module with no tools. A module with event types gets `events`, whose
    /// occurrences the fake serves.
    fn tokens(self, server_name: &str, events: bool) -> TokenStream {
        let Fake { mut methods, arms } = self;
        if arms.is_empty() {
            return quote!();
        }
        let mut event_methods = TokenStream::new();
        if events {
            methods.push(quote! {
                /// The occurrences this fake serves to the client's `poll_*` and `stream_*`
                /// methods: return `Some(&self.events)` and emit into it. Unless implemented,
                /// none (those methods fail as not faked).
                fn events(&self) -> ::std::option::Option<&::mcp_bindgen::fake::FakeEvents> {
                    None
                }
            });
            event_methods = quote! {
                async fn poll_events(
                    &self,
                    name: &str,
                    arguments: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
                    cursor: ::std::option::Option<&str>,
                    max_events: ::std::option::Option<u32>,
                ) -> ::std::result::Result<::mcp_bindgen::events::EventPage, ::mcp_bindgen::Error> {
                    let _ = (arguments, max_events);
                    ::mcp_bindgen::fake::FakeEvents::poll_for(self.0.events(), name, cursor)
                }

                fn stream_events(
                    &self,
                    name: &str,
                    arguments: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
                    options: ::mcp_bindgen::events::EventOptions,
                ) -> ::mcp_bindgen::events::EventStream {
                    let _ = (arguments, options);
                    ::mcp_bindgen::fake::FakeEvents::stream_for(self.0.events(), name)
                }
            };
        }
        let trait_doc = doc(&format!(
            "A stand-in for the {server_name} MCP server in tests: one method per tool, typed as [`Client`]'s.\n\nImplement the tools a test needs (as `async fn`s); the others fail with a tool error naming them. Wrapped in [`Faked`], a fake is a [`mcp_bindgen::ToolCaller`] for `Client::new`, and answers as the server would: arguments are checked against the tool's input schema before the fake runs, and its result against the tool's output schema after."
        ));
        let adapter_doc = doc(
            "A [`Fake`] as a [`mcp_bindgen::ToolCaller`]: `Client::new(Faked(fake))`. See [`mcp_bindgen::fake`].",
        );
        quote! {
            #trait_doc
            pub trait Fake: ::std::marker::Send + ::std::marker::Sync {
                #(#methods)*
            }

            #adapter_doc
            #[derive(Debug, Clone, Default)]
            pub struct Faked<F>(pub F);

            /// The schemas a fake's calls and answers are checked against: those in
            /// [`PROVENANCE`], compiled on first use.
            static FAKE_SCHEMAS: ::mcp_bindgen::fake::Schemas =
                ::mcp_bindgen::fake::Schemas::new(&PROVENANCE);

            impl<F: Fake> ::mcp_bindgen::ToolCaller for Faked<F> {
                async fn call_tool(
                    &self,
                    name: &str,
                    arguments: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
                ) -> ::std::result::Result<::mcp_bindgen::CallToolResult, ::mcp_bindgen::Error> {
                    let (fake, schemas) = (&self.0, &FAKE_SCHEMAS);
                    match name {
                        #(#arms)*
                        _ => Err(::mcp_bindgen::fake::unknown_tool(name)),
                    }
                }

                #event_methods
            }
        }
    }
}

/// What replaces the placeholders (`__mcp_method`, `__McpArgs`, `"__mcp_name"`, ...) of the
/// [`Templates`] for one tool: its method names, wire name, types and docs.
struct Placeholders<'a> {
    method: proc_macro2::Ident,
    raw: proc_macro2::Ident,
    /// For a tool that runs as a task: its `_task` method, how it takes tasks, and that
    /// method's doc.
    task: Option<(proc_macro2::Ident, TaskSupport, Vec<syn::Attribute>)>,
    name: &'a str,
    /// The static holding the tool's descriptor, in the module `tools`.
    tool: proc_macro2::Ident,
    /// The arguments' type (`None` for a tool that takes none).
    args: Option<proc_macro2::Ident>,
    output: syn::Type,
    method_doc: Vec<syn::Attribute>,
    raw_doc: Vec<syn::Attribute>,
}

/// A tool's `method` and `method_raw`, parsed once (with and without arguments) and cloned
/// for each tool with its names filled in: cloning a syntax tree costs far less than quoting
/// and parsing a thousand of them.
struct Templates {
    with_args: [syn::ImplItemFn; 2],
    without_args: [syn::ImplItemFn; 2],
    /// A task-capable tool's `_task` method, then a task-only tool's `method` and
    /// `method_raw`, which start a task and wait for it.
    tasks_with_args: [syn::ImplItemFn; 3],
    tasks_without_args: [syn::ImplItemFn; 3],
}

impl Templates {
    fn new() -> Self {
        let with_args: syn::ItemImpl = syn::parse_quote! {
            impl Template {
                pub async fn __mcp_method(&self, args: &types::__McpArgs) -> ::std::result::Result<__McpOutput, ::mcp_bindgen::Error> {
                    tools::__MCP_TOOL.call(&self.caller, args).await
                }

                pub async fn __mcp_raw(&self, args: &types::__McpArgs) -> ::std::result::Result<::mcp_bindgen::CallToolResult, ::mcp_bindgen::Error> {
                    tools::__MCP_TOOL.call_raw(&self.caller, args).await
                }
            }
        };
        let without_args: syn::ItemImpl = syn::parse_quote! {
            impl Template {
                pub async fn __mcp_method(&self) -> ::std::result::Result<__McpOutput, ::mcp_bindgen::Error> {
                    tools::__MCP_TOOL.call(&self.caller, &::mcp_bindgen::NoArguments {}).await
                }

                pub async fn __mcp_raw(&self) -> ::std::result::Result<::mcp_bindgen::CallToolResult, ::mcp_bindgen::Error> {
                    tools::__MCP_TOOL.call_raw(&self.caller, &::mcp_bindgen::NoArguments {}).await
                }
            }
        };
        let tasks_with_args: syn::ItemImpl = syn::parse_quote! {
            impl Template {
                pub async fn __mcp_task(&self, args: &types::__McpArgs) -> ::std::result::Result<::mcp_bindgen::TaskHandle<__McpOutput>, ::mcp_bindgen::Error> {
                    tools::__MCP_TOOL.start_task(&self.caller, args).await
                }

                pub async fn __mcp_method(&self, args: &types::__McpArgs) -> ::std::result::Result<__McpOutput, ::mcp_bindgen::Error> {
                    self.__mcp_task(args).await?.wait().await
                }

                pub async fn __mcp_raw(&self, args: &types::__McpArgs) -> ::std::result::Result<::mcp_bindgen::CallToolResult, ::mcp_bindgen::Error> {
                    tools::__MCP_TOOL.call_raw_as_task(&self.caller, args).await
                }
            }
        };
        let tasks_without_args: syn::ItemImpl = syn::parse_quote! {
            impl Template {
                pub async fn __mcp_task(&self) -> ::std::result::Result<::mcp_bindgen::TaskHandle<__McpOutput>, ::mcp_bindgen::Error> {
                    tools::__MCP_TOOL.start_task(&self.caller, &::mcp_bindgen::NoArguments {}).await
                }

                pub async fn __mcp_method(&self) -> ::std::result::Result<__McpOutput, ::mcp_bindgen::Error> {
                    self.__mcp_task().await?.wait().await
                }

                pub async fn __mcp_raw(&self) -> ::std::result::Result<::mcp_bindgen::CallToolResult, ::mcp_bindgen::Error> {
                    tools::__MCP_TOOL.call_raw_as_task(&self.caller, &::mcp_bindgen::NoArguments {}).await
                }
            }
        };
        fn fns<const N: usize>(item: syn::ItemImpl) -> [syn::ImplItemFn; N] {
            let fns: Vec<syn::ImplItemFn> = item
                .items
                .into_iter()
                .filter_map(|i| match i {
                    syn::ImplItem::Fn(f) => Some(f),
                    _ => None,
                })
                .collect();
            fns.try_into()
                .unwrap_or_else(|_| unreachable!("the template holds {N} methods"))
        }
        Templates {
            with_args: fns(with_args),
            without_args: fns(without_args),
            tasks_with_args: fns(tasks_with_args),
            tasks_without_args: fns(tasks_without_args),
        }
    }

    /// The tool's `method` and `method_raw`, and a task-capable tool's `method_task` (a
    /// task-only tool's `method` and `method_raw` start a task and wait for it).
    fn fill(&self, fill: &Placeholders<'_>) -> Vec<syn::ImplItem> {
        let [method, raw] = match fill.args {
            Some(_) => &self.with_args,
            None => &self.without_args,
        };
        let (mut method, mut raw) = (method.clone(), raw.clone());
        let mut task = None;
        if let Some((_, support, task_doc)) = &fill.task {
            let [task_method, method_by_task, raw_by_task] = match fill.args {
                Some(_) => &self.tasks_with_args,
                None => &self.tasks_without_args,
            };
            if *support == TaskSupport::Required {
                method = method_by_task.clone();
                raw = raw_by_task.clone();
            }
            let mut task_method = task_method.clone();
            task_method.attrs = task_doc.clone();
            task = Some(task_method);
        }
        method.attrs = fill.method_doc.clone();
        raw.attrs = fill.raw_doc.clone();
        let mut visitor = PlaceholderVisitor(fill);
        let mut items = Vec::with_capacity(3);
        for mut f in [Some(method), Some(raw), task].into_iter().flatten() {
            visitor.visit_impl_item_fn_mut(&mut f);
            items.push(syn::ImplItem::Fn(f));
        }
        items
    }
}

/// Walks a template method and puts one tool's [`Placeholders`] in.
struct PlaceholderVisitor<'a>(&'a Placeholders<'a>);

impl VisitMut for PlaceholderVisitor<'_> {
    fn visit_ident_mut(&mut self, ident: &mut proc_macro2::Ident) {
        let fill = self.0;
        let new = if ident == "__mcp_method" {
            &fill.method
        } else if ident == "__mcp_raw" {
            &fill.raw
        } else if let (true, Some((task, ..))) = (ident == "__mcp_task", &fill.task) {
            task
        } else if ident == "__MCP_TOOL" {
            &fill.tool
        } else if let (true, Some(ty)) = (ident == "__McpArgs", &fill.args) {
            ty
        } else {
            return;
        };
        *ident = new.clone();
    }

    fn visit_lit_str_mut(&mut self, lit: &mut syn::LitStr) {
        if lit.value() == "__mcp_name" {
            *lit = syn::LitStr::new(self.0.name, proc_macro2::Span::call_site());
        }
    }

    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty
            && p.qself.is_none()
            && p.path.is_ident("__McpOutput")
        {
            *ty = self.0.output.clone();
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// `#[doc = ".."]` attributes, one per line, as [`doc`] writes them, as syntax trees.
fn doc_attrs(text: &str) -> Vec<syn::Attribute> {
    docs::doc_lines(&docs::wrap(text, METHOD_DOC_WIDTH))
        .into_iter()
        .map(|line| syn::Attribute {
            pound_token: Default::default(),
            style: syn::AttrStyle::Outer,
            bracket_token: Default::default(),
            meta: syn::Meta::NameValue(syn::MetaNameValue {
                path: syn::Ident::new("doc", proc_macro2::Span::call_site()).into(),
                eq_token: Default::default(),
                value: syn::Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit: syn::Lit::Str(syn::LitStr::new(&line, proc_macro2::Span::call_site())),
                }),
            }),
        })
        .collect()
}

/// A module with only the contracts' types (no capture, so no client).
/// The types go in after parsing ([`file()`]).
fn types_only(config: &ServerConfig, server_name: &str) -> TokenStream {
    let contracts: Vec<String> = config
        .contracts
        .iter()
        .map(|p| format!("`{}`", p.to_string_lossy().replace('\\', "/")))
        .collect();
    let module_doc = inner_doc(&format!(
        "Types of the {server_name} agent contracts.\n\nGenerated by mcp-bindgen from {}.",
        contracts.join(", ")
    ));
    quote! {
        #module_doc

        /// The agent contracts' types and constants.
        // typify writes `Default` for enums by hand, and keeps variants' fields inline;
        // what a contract does not describe has no doc comment.
        #[allow(clippy::derivable_impls, clippy::large_enum_variant, missing_docs)]
        pub mod types {}
    }
}

fn hints(tool: &Tool) -> String {
    let a = &tool.annotations;
    let mut out = Vec::new();
    let mut push = |flag: Option<bool>, yes: &str, no: &str| match flag {
        Some(true) => out.push(yes.to_owned()),
        Some(false) => out.push(no.to_owned()),
        None => {}
    };
    push(a.read_only, "read-only", "not read-only");
    push(a.destructive, "destructive", "not destructive");
    push(a.idempotent, "idempotent", "not idempotent");
    push(a.open_world, "open world", "closed world");
    out.join(", ")
}
