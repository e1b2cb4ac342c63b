//! One server's module: names, normalised schemas through typify, and the client (quote).

use std::collections::{BTreeMap, BTreeSet};

use heck::ToShoutySnakeCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;
use syn::visit_mut::VisitMut;

use crate::config::ServerConfig;
use crate::contracts::{self, Contracts, Lowered, NO_CONTRACTS, Source};
use crate::definition::{Normalised, Own, Substitution};
use crate::diagnostic::{Diagnostic, Reporter};
use crate::dialect;
use crate::error::Error;
use crate::fault::{Fault, Stage};
use crate::model::{Capture, Tool};
use crate::module::Module;
use crate::naming::{self, Names};
use crate::normalise;
use crate::plan::{self, Args, Plan};
use crate::types::{self, Extra, Unit};

/// The contracts of a server, lowered and normalised.
struct ContractTypes {
    lowered: Lowered,
    unit: Unit,
    substitutions: Vec<Substitution>,
    own: Vec<Own>,
    three_state: BTreeSet<(String, String)>,
    /// Every contract definition: their `f64`s are TypeScript numbers.
    js_numbers: BTreeSet<String>,
}

pub(crate) fn generate(
    config: &ServerConfig,
    capture: Option<&Capture>,
    sources: Vec<Source>,
    faults: &[Fault],
) -> Result<Module, Error> {
    let has_client = capture.is_some();
    let empty;
    let capture = match capture {
        Some(capture) => capture,
        None => {
            empty = Capture {
                file: config.contracts.first().cloned().unwrap_or_default(),
                text: String::new(),
                server: None,
                protocol_version: None,
                tools: Vec::new(),
            };
            &empty
        }
    };
    let file = &capture.file;
    let mut report = Reporter::new(file, &capture.text);

    plan::check_configured_tools(config, capture, has_client)?;
    let mut plans = plan::methods(config, capture, &mut report)?;

    // Schemas → typify units.
    let mut names = plan::type_names(&plans);
    let contract_types = if sources.is_empty() && config.results.is_empty() {
        None
    } else if !cfg!(feature = "contracts") {
        let what = match config.contracts.first() {
            Some(path) => format!("the contract `{}`", path.display()),
            None => "result types written in TypeScript".to_owned(),
        };
        return Err(Diagnostic::new(
            format!("[servers.{}]", config.module),
            format!("{what} needs {NO_CONTRACTS}"),
        )
        .help("turn the feature on: mcp-bindgen-codegen = { version = \"..\", features = [\"contracts\"] } (it is on by default)")
        .into());
    } else {
        Some(lower_contracts(
            config,
            sources,
            &plan::stems(&plans),
            &mut names,
        )?)
    };
    let mut contract_warnings = Vec::new();
    if let Some(contracts) = &contract_types {
        contract_warnings.extend(contracts.lowered.warnings.iter().cloned());
        plan::take_contract_results(&mut plans, &contracts.lowered.results);
    }
    let mut units = Vec::new();
    let mut substitutions = Vec::new();
    let mut own = Vec::new();
    for plan in &mut plans {
        let tool = plan.tool;
        let stem = plan.stem();
        for (key, schema) in [
            ("inputSchema", Some(&tool.input_schema)),
            ("outputSchema", tool.output_schema.as_ref()),
        ] {
            if let Some(schema) = schema {
                let base = format!("{}/{key}", tool.pointer);
                dialect::check(schema, &|p: &str, m: String, h: &str| {
                    report.error(&format!("{base}{p}"), m, h)
                })?;
            }
        }
        if !plan::takes_arguments(&tool.input_schema) {
            continue;
        }
        let input_pointer = format!("{}/inputSchema", tool.pointer);
        let args_name = format!("{stem}Args");
        if !plan::is_object_schema(&tool.input_schema) {
            report.warn(
                &tool.name,
                input_pointer.clone(),
                "inputSchema does not describe an object; arguments typed as a JSON object".into(),
            );
            plan.args = Args::Map(args_name);
            continue;
        }
        let schema_diag =
            |p: &str, m: String, h: &str| report.error(&format!("{input_pointer}{p}"), m, h);
        let forced = plan::has_fault(faults, tool, Stage::Normalise);
        let normalised = match normalise_guarded(
            &tool.input_schema,
            (&args_name, &stem),
            &mut names,
            &schema_diag,
            forced,
        )? {
            Ok(normalised) => normalised,
            Err(reason) => {
                report.warn(
                    &tool.name,
                    input_pointer,
                    format!("{reason}; arguments typed as a JSON object"),
                );
                plan.args = Args::Map(args_name);
                continue;
            }
        };
        for (p, m) in normalised.warnings {
            report.warn(&tool.name, format!("{input_pointer}{p}"), m);
        }
        substitutions.extend(normalised.substitutions);
        own.extend(normalised.own);
        units.push(Unit {
            root: args_name.clone(),
            defs: normalised.defs,
            split: false,
        });
        plan.args = Args::Typed(args_name);
    }
    // Output schemas, with or without arguments; a result type from the contracts wins.
    for plan in &mut plans {
        let tool = plan.tool;
        if plan.output.is_some() || plan.from_contracts {
            continue;
        }
        if let Some(output) = &tool.output_schema {
            let stem = plan.stem();
            let output_pointer = format!("{}/outputSchema", tool.pointer);
            let output_name = format!("{stem}Output");
            let schema_diag =
                |p: &str, m: String, h: &str| report.error(&format!("{output_pointer}{p}"), m, h);
            let normalised = match normalise_guarded(
                output,
                (&output_name, &stem),
                &mut names,
                &schema_diag,
                false,
            )? {
                Ok(normalised) => normalised,
                Err(reason) => {
                    report.warn(
                        &tool.name,
                        output_pointer,
                        format!("{reason}; result typed as serde_json::Value"),
                    );
                    continue;
                }
            };
            for (p, m) in normalised.warnings {
                report.warn(&tool.name, format!("{output_pointer}{p}"), m);
            }
            substitutions.extend(normalised.substitutions);
            own.extend(normalised.own);
            units.push(Unit {
                root: output_name.clone(),
                defs: normalised.defs,
                split: false,
            });
            plan.output = Some(output_name);
        }
    }

    plan::check_variants(config, file, &names)?;
    let no_three_state = BTreeSet::new();
    let no_js_numbers = BTreeSet::new();
    let mut consts = Vec::new();
    let mut three_state = &no_three_state;
    let mut js_numbers = &no_js_numbers;
    if let Some(contracts) = &contract_types {
        units.push(contracts.unit.clone());
        substitutions.extend(contracts.substitutions.iter().cloned());
        own.extend(contracts.own.iter().cloned());
        three_state = &contracts.three_state;
        js_numbers = &contracts.js_numbers;
        consts = contracts.lowered.consts.clone();
    }
    let forced = plan::unit_faults(faults, &plans);
    let root_docs = plan::root_docs(&plans);
    let mut generated = types::generate(
        &units,
        &Extra {
            substitutions: &substitutions,
            own: &own,
            three_state,
            js_numbers,
            consts: &consts,
            faults: &forced,
            root_docs: &root_docs,
        },
    );
    plan::missing_names(&plans, &mut generated);
    if let Some(contracts) = &contract_types {
        for (name, reason) in &generated.failed {
            if contracts.unit.defs.iter().any(|(def, _)| def == name) {
                contract_warnings.push(contracts.lowered.warning(
                    name,
                    format!("{reason}; `{name}` typed as serde_json::Value"),
                ));
            }
        }
    }
    plan::degrade(&mut plans, &generated.failed, &mut report);

    let server_name = config
        .name
        .clone()
        .or_else(|| {
            capture
                .server
                .as_ref()
                .map(|s| s.title.clone().unwrap_or_else(|| s.name.clone()))
        })
        .unwrap_or_else(|| config.module.clone());
    let has_types = !generated.items.is_empty();
    let file_name = file;
    let (tokens, methods) = if has_client {
        emit(config, capture, &server_name, &plans, has_types)
    } else {
        (emit_types_only(config, &server_name), Vec::new())
    };
    let mut file: syn::File = syn::parse2(tokens).map_err(|e| {
        Diagnostic::new(
            file_name,
            format!("internal error: generated code does not parse: {e}"),
        )
        .help("please report this with the capture attached")
    })?;
    if !methods.is_empty() {
        // The methods are syntax trees already: they go into the last `impl`, `Client`'s
        // methods, after parsing.
        match file.items.iter_mut().rev().find_map(|item| match item {
            syn::Item::Impl(i) => Some(i),
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
            Some((_, items)) => items.extend(generated.items),
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
    let mut warnings = report.into_warnings();
    warnings.extend(contract_warnings);
    warnings.sort_by(|a, b| {
        (a.file.clone(), a.at.map(|at| (at.line, at.column)))
            .cmp(&(b.file.clone(), b.at.map(|at| (at.line, at.column))))
    });
    let mut inputs: Vec<std::path::PathBuf> = plan::capture_input(config, capture, has_client);
    inputs.extend(config.contracts.iter().cloned());
    Ok(Module {
        name: config.module.clone(),
        inputs,
        body: file.into(),
        warnings,
        tools: plans.len(),
        types: generated.count,
    })
}

/// Normalises one of a tool's schemas (as the type `root.0`, nested names starting with
/// `root.1`) under a guard: a panic in the normaliser (or a `forced` one) costs that schema
/// its type, with the reason, instead of costing the whole server. The outer error is an input
/// error that stops generation (an unknown dialect).
fn normalise_guarded(
    schema: &Value,
    (root, prefix): (&str, &str),
    names: &mut Names,
    diag: &dyn Fn(&str, String, &str) -> Diagnostic,
    forced: bool,
) -> Result<Result<Normalised, String>, Error> {
    let result = types::guarded(|| {
        if forced {
            panic!("{}", crate::fault::INJECTED);
        }
        normalise::normalise(schema, root, prefix, names, diag)
    });
    match result {
        Ok(normalised) => normalised.map(Ok),
        Err(message) => Ok(Err(format!("normaliser panicked: {message}"))),
    }
}

/// Parses, lowers and normalises the server's contracts; result types are named
/// `{Stem}Result` when they are not a declared type.
fn lower_contracts(
    config: &ServerConfig,
    sources: Vec<Source>,
    stems: &BTreeMap<&str, String>,
    names: &mut Names,
) -> Result<ContractTypes, Error> {
    let contracts = Contracts::parse(sources)?;
    let settings = contracts::Settings {
        overrides: &config.overrides,
        results: config
            .results
            .iter()
            .map(|(tool, ty)| {
                let stem = stems.get(tool.as_str()).cloned().unwrap_or_default();
                (tool.clone(), format!("{stem}Result"), ty.clone())
            })
            .collect(),
    };
    let lowered = contracts.lower(&settings, &mut |wanted| names.reserve(wanted))?;
    for (ty, chosen) in &config.variants {
        names.name_variants_of(ty, chosen);
    }
    for (ty, chosen) in &lowered.variant_names {
        names.name_variants_of(ty, chosen);
    }
    let normalised = normalise::normalise_definitions(&lowered.defs, names);
    let mut lowered = lowered;
    for (pointer, message) in normalised.warnings {
        let def = pointer.split('/').nth(2).unwrap_or_default().to_owned();
        let warning = lowered.warning(&def, message);
        lowered.warnings.push(warning);
    }
    let three_state = three_state_fields(&normalised.defs);
    let js_numbers = normalised
        .defs
        .iter()
        .map(|(name, _)| name.clone())
        .collect();
    Ok(ContractTypes {
        js_numbers,
        unit: Unit {
            root: "agent contracts".into(),
            defs: normalised.defs,
            split: true,
        },
        substitutions: normalised.substitutions,
        own: normalised.own,
        three_state,
        lowered,
    })
}

/// Fields that may be absent and may be `null` (`f?: T | null`), by definition and wire name.
fn three_state_fields(defs: &[(String, Value)]) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (name, schema) in defs {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (field, property) in properties {
            let nullable = property
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|any| {
                    any.iter()
                        .any(|s| s.get("type") == Some(&Value::from("null")))
                });
            if nullable && !required.contains(&field.as_str()) {
                out.insert((name.clone(), field.clone()));
            }
        }
    }
    out
}

/// `#[doc = ".."]` attributes, one per line, so prettyplease prints `///` lines.
fn doc(text: &str) -> TokenStream {
    let lines = types::tidy::doc_lines(text);
    quote! { #(#[doc = #lines])* }
}

fn inner_doc(text: &str) -> TokenStream {
    let lines = types::tidy::doc_lines(text);
    quote! { #(#![doc = #lines])* }
}

/// A raw string literal that holds `s` as is.
fn raw_string(s: &str) -> TokenStream {
    let mut hashes = 1;
    while s.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let h = "#".repeat(hashes);
    format!("r{h}\"{s}\"{h}")
        .parse()
        .unwrap_or_else(|_| quote!(#s))
}

fn emit(
    config: &ServerConfig,
    capture: &Capture,
    server_name: &str,
    plans: &[Plan<'_>],
    has_types: bool,
) -> (TokenStream, Vec<syn::ImplItem>) {
    let mut about = format!("Typed client for the {server_name} MCP server.\n\n");
    let capture_name = config
        .capture
        .as_ref()
        .unwrap_or(&capture.file)
        .to_string_lossy()
        .replace('\\', "/");
    about.push_str(&format!(
        "Generated by mcp-bindgen from `{capture_name}`: {} tools",
        plans.len()
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
        ".\n\nCall tools through [`Client`], which wraps any [`mcp_bindgen::ToolCaller`].",
    );
    let module_doc = inner_doc(&about);

    let mut schemas = Vec::new();
    let mut methods = Vec::new();
    let templates = Templates::new();
    let mut names = Vec::new();
    for plan in plans {
        let tool = plan.tool;
        let name = &tool.name;
        names.push(name.clone());
        let method = naming::ident(&plan.method);
        let raw = format_ident!("{}_raw", plan.method);
        let schema_const = format_ident!("{}", plan.method.to_shouty_snake_case());
        let output: syn::Type = match &plan.output {
            Some(output) => {
                let output = format_ident!("{output}");
                syn::parse_quote!(types::#output)
            }
            None => syn::parse_quote!(::serde_json::Value),
        };
        let args = match &plan.args {
            Args::None => None,
            Args::Typed(ty) | Args::Map(ty) => {
                let ty = format_ident!("{ty}");
                let json = serde_json::to_string(&tool.input_schema).unwrap_or_default();
                let literal = raw_string(&json);
                let schema_doc = format!(" The input schema of `{name}`, as the server sent it.");
                schemas.push(quote! {
                    #[doc = #schema_doc]
                    pub(super) static #schema_const: ::mcp_bindgen::ToolSchema =
                        ::mcp_bindgen::ToolSchema::new(#literal);
                });
                Some((ty, schema_const))
            }
        };
        let mut text = tool
            .description
            .clone()
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
        if plan.output.is_none() {
            text.push_str(" The server declares no result type, so the result is JSON.");
        } else if plan.from_contracts {
            text.push_str(" The result type comes from the agent contracts.");
        }
        let method_doc = doc_attrs(&text);
        let raw_doc = doc_attrs(&format!(
            "Calls `{name}` like [`Self::{}`], without unwrapping the result envelope.\n\nA result with `isError: true` is still an [`mcp_bindgen::Error::Tool`].",
            plan.method
        ));
        methods.extend(templates.fill(&Fill {
            method,
            raw,
            name,
            args,
            output,
            method_doc,
            raw_doc,
        }));
    }

    let client_doc = doc(&format!(
        "Typed client for the {server_name} MCP server: one method per tool.\n\nEach `tool` method checks its arguments against the tool's input schema, calls the tool through the [`mcp_bindgen::ToolCaller`], and decodes the result; `tool_raw` returns the `CallToolResult` as sent."
    ));
    let schemas_mod = if schemas.is_empty() {
        quote!()
    } else {
        quote! {
            /// Input schemas, checked before each call is sent.
            mod schemas {
                #(#schemas)*
            }
        }
    };
    let arg_aliases: Vec<TokenStream> = plans
        .iter()
        .filter_map(|p| match &p.args {
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
    let types_doc = if config.contracts.is_empty() {
        doc("Argument and result types of the tools.")
    } else {
        doc("Argument and result types of the tools, and the agent contracts' types and constants.")
    };
    // The types go in after parsing (`generate`).
    let types_mod = if !has_types && arg_aliases.is_empty() {
        quote!()
    } else {
        quote! {
            #types_doc
            // typify writes `Default` for enums by hand, and keeps variants' fields inline;
            // what a schema does not describe has no doc comment.
            #[allow(clippy::derivable_impls, clippy::large_enum_variant, missing_docs)]
            pub mod types {
                #(#arg_aliases)*
            }
        }
    };
    let tokens = quote! {
        #module_doc

        #types_mod

        #schemas_mod

        /// The tools this module was generated for, in the server's order.
        pub const TOOL_NAMES: &[&str] = &[#(#names),*];

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

        impl<C: ::mcp_bindgen::ToolCaller> Client<C> {}
    };
    (tokens, methods)
}

/// One tool's pair of methods, to fill into [`Templates`].
struct Fill<'a> {
    method: proc_macro2::Ident,
    raw: proc_macro2::Ident,
    name: &'a str,
    /// The arguments' type and the static holding their schema.
    args: Option<(proc_macro2::Ident, proc_macro2::Ident)>,
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
}

impl Templates {
    fn new() -> Self {
        let with_args: syn::ItemImpl = syn::parse_quote! {
            impl Template {
                pub async fn __mcp_method(&self, args: &types::__McpArgs) -> ::std::result::Result<__McpOutput, ::mcp_bindgen::Error> {
                    let arguments = ::mcp_bindgen::encode_arguments("__mcp_name", args, Some(&schemas::__MCP_SCHEMA))?;
                    ::mcp_bindgen::ToolCaller::call_tool_decoded(&self.caller, "__mcp_name", arguments).await
                }

                pub async fn __mcp_raw(&self, args: &types::__McpArgs) -> ::std::result::Result<::mcp_bindgen::CallToolResult, ::mcp_bindgen::Error> {
                    let arguments = ::mcp_bindgen::encode_arguments("__mcp_name", args, Some(&schemas::__MCP_SCHEMA))?;
                    ::mcp_bindgen::call_checked(&self.caller, "__mcp_name", arguments).await
                }
            }
        };
        let without_args: syn::ItemImpl = syn::parse_quote! {
            impl Template {
                pub async fn __mcp_method(&self) -> ::std::result::Result<__McpOutput, ::mcp_bindgen::Error> {
                    let arguments = ::serde_json::Map::new();
                    ::mcp_bindgen::ToolCaller::call_tool_decoded(&self.caller, "__mcp_name", arguments).await
                }

                pub async fn __mcp_raw(&self) -> ::std::result::Result<::mcp_bindgen::CallToolResult, ::mcp_bindgen::Error> {
                    let arguments = ::serde_json::Map::new();
                    ::mcp_bindgen::call_checked(&self.caller, "__mcp_name", arguments).await
                }
            }
        };
        let pair = |item: syn::ItemImpl| -> [syn::ImplItemFn; 2] {
            let fns: Vec<syn::ImplItemFn> = item
                .items
                .into_iter()
                .filter_map(|i| match i {
                    syn::ImplItem::Fn(f) => Some(f),
                    _ => None,
                })
                .collect();
            fns.try_into()
                .unwrap_or_else(|_| unreachable!("the template holds two methods"))
        };
        Templates {
            with_args: pair(with_args),
            without_args: pair(without_args),
        }
    }

    fn fill(&self, fill: &Fill<'_>) -> [syn::ImplItem; 2] {
        let [method, raw] = match fill.args {
            Some(_) => &self.with_args,
            None => &self.without_args,
        };
        let (mut method, mut raw) = (method.clone(), raw.clone());
        method.attrs = fill.method_doc.clone();
        raw.attrs = fill.raw_doc.clone();
        let mut filler = Filler(fill);
        filler.visit_impl_item_fn_mut(&mut method);
        filler.visit_impl_item_fn_mut(&mut raw);
        [syn::ImplItem::Fn(method), syn::ImplItem::Fn(raw)]
    }
}

struct Filler<'a>(&'a Fill<'a>);

impl VisitMut for Filler<'_> {
    fn visit_ident_mut(&mut self, ident: &mut proc_macro2::Ident) {
        let fill = self.0;
        let new = if ident == "__mcp_method" {
            &fill.method
        } else if ident == "__mcp_raw" {
            &fill.raw
        } else if let Some((ty, schema)) = &fill.args {
            if ident == "__McpArgs" {
                ty
            } else if ident == "__MCP_SCHEMA" {
                schema
            } else {
                return;
            }
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
    types::tidy::doc_lines(text)
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
/// The types go in after parsing (`generate`).
fn emit_types_only(config: &ServerConfig, server_name: &str) -> TokenStream {
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
