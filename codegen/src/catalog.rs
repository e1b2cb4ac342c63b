//! The client beyond tools: one method per prompt (its arguments a struct in `prompts`), one
//! per resource template (its URI variables typed arguments, the URI expanded by RFC 6570),
//! the static resources as constants in `resources` with a `read_resource` method, and, for a
//! server that offers completion, one `complete_*` method per prompt argument and template
//! variable. Nothing is emitted for a capture that has none.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;

use crate::docs::{ITEM_DOC_WIDTH, METHOD_DOC_WIDTH, dedent, doc_at as doc};
use crate::model::{Capture, Prompt, ResourceTemplate};
use crate::naming::{field_name, ident, method_name, type_name};

/// Items inside `prompts` and `resources` sit one indent deeper, as methods do.
const INNER_DOC_WIDTH: usize = METHOD_DOC_WIDTH;

/// The module items (`prompts`, `resources`) and the client's methods for them.
pub(crate) struct Catalog {
    pub(crate) items: TokenStream,
    pub(crate) methods: Vec<syn::ImplItem>,
}

/// `wanted`, or when `taken` has it (or `allowed` refuses it) `wanted`, `separator` and the
/// first number from 2 that is free (`prompt_briefing_2`, `BriefingArgs2`); inserted in
/// `taken`.
pub(crate) fn unique(
    taken: &mut BTreeSet<String>,
    wanted: &str,
    separator: &str,
    allowed: impl Fn(&str) -> bool,
) -> String {
    let mut name = wanted.to_owned();
    let mut n = 1;
    while !allowed(&name) || !taken.insert(name.clone()) {
        n += 1;
        name = format!("{wanted}{separator}{n}");
    }
    name
}

/// `taken`: the client's method names already in use (the tools' and the client's own).
/// `Err`: a method's tokens did not parse (a generator bug).
pub(crate) fn emit(capture: &Capture, taken: &mut BTreeSet<String>) -> syn::Result<Catalog> {
    let mut items = TokenStream::new();
    let mut methods: Vec<TokenStream> = Vec::new();
    let mut free = |wanted: String| unique(taken, &wanted, "_", |_| true);
    if !capture.prompts.is_empty() {
        let mut structs = Vec::new();
        let mut type_names = BTreeSet::new();
        for prompt in &capture.prompts {
            let method = free(format!("prompt_{}", method_name(&prompt.name)));
            let (args, tokens) = prompt_method(prompt, &method, &mut type_names);
            structs.extend(args);
            methods.push(tokens);
        }
        items.extend(quote! {
            /// The arguments of the server's prompts, one struct per prompt that takes any.
            pub mod prompts {
                #(#structs)*
            }
        });
    }
    if !capture.resources.is_empty() {
        let read = free("read_resource".into());
        let (module, method) = resources(capture, &read);
        items.extend(module);
        methods.push(method);
    }
    for template in &capture.templates {
        let method = free(format!("read_{}", method_name(&template.name)));
        methods.push(template_method(template, &method));
    }
    if !capture.skills.is_empty() {
        items.extend(skills(capture));
    }
    if capture.completions {
        for prompt in &capture.prompts {
            for argument in &prompt.arguments {
                let method = free(format!(
                    "complete_{}_{}",
                    method_name(&prompt.name),
                    field_name(&argument.name)
                ));
                let what = format!(
                    "the `{}` argument of the `{}` prompt",
                    argument.name, prompt.name
                );
                let name = &prompt.name;
                let reference = quote! { ::mcp_bindgen::CompletionRef::Prompt(#name.into()) };
                let checked = quote! { ::mcp_bindgen::drift::Kind::Prompt, #name };
                methods.push(completion_method(
                    &method,
                    &what,
                    reference,
                    checked,
                    &argument.name,
                ));
            }
        }
        for template in &capture.templates {
            for variable in template.variables() {
                let method = free(format!(
                    "complete_{}_{}",
                    method_name(&template.name),
                    field_name(&variable)
                ));
                let what = format!(
                    "the `{variable}` variable of the `{}` resource template (`{}`)",
                    template.name, template.uri_template
                );
                let uri = &template.uri_template;
                let reference = quote! { ::mcp_bindgen::CompletionRef::Resource(#uri.into()) };
                let name = &template.name;
                let checked = quote! { ::mcp_bindgen::drift::Kind::ResourceTemplate, #name };
                methods.push(completion_method(
                    &method, &what, reference, checked, &variable,
                ));
            }
        }
    }
    // Tokens this module wrote: one that does not parse is a bug to report, never a method
    // left out in silence.
    let methods = methods
        .into_iter()
        .map(syn::parse2::<syn::ImplItem>)
        .collect::<syn::Result<_>>()?;
    Ok(Catalog { items, methods })
}

/// The `resources` module (a constant per resource at a fixed URI) and the client's method
/// `read` that reads any of them.
fn resources(capture: &Capture, read: &str) -> (TokenStream, TokenStream) {
    let mut names = BTreeSet::new();
    let constants = capture.resources.iter().map(|resource| {
        let mut name = method_name(&resource.name).to_uppercase();
        if name.is_empty() {
            name = "RESOURCE".into();
        }
        let name = unique(&mut names, &name, "_", |_| true);
        let name = syn::Ident::new(&name, proc_macro2::Span::call_site());
        let mut text = match (&resource.title, &resource.description) {
            (Some(title), Some(description)) => format!("{title}: {}", dedent(description)),
            (None, Some(description)) => dedent(description),
            (Some(title), None) => format!("{title}."),
            (None, None) => format!("The `{}` resource.", resource.name),
        };
        if let Some(mime) = &resource.mime_type {
            text.push_str(&format!("\n\nIts contents are `{mime}`."));
        }
        let doc = doc(&text, INNER_DOC_WIDTH);
        let uri = &resource.uri;
        quote! {
            #doc
            pub const #name: &str = #uri;
        }
    });
    let module_doc = doc(
        &format!(
            "The server's resources at fixed URIs: read one with [`Client::{read}`](super::Client::{read})."
        ),
        ITEM_DOC_WIDTH,
    );
    let module = quote! {
        #module_doc
        pub mod resources {
            #(#constants)*
        }
    };
    let method = ident(read);
    let method = quote! {
        /// Reads a resource of the server (one of [`resources`], or any URI it serves).
        pub async fn #method(
            &self,
            uri: &str,
        ) -> ::std::result::Result<::mcp_bindgen::ReadResourceResult, ::mcp_bindgen::Error> {
            self.caller
                .check_catalog(&PROVENANCE, ::mcp_bindgen::drift::Kind::Resource, uri)
                .await?;
            self.caller.read_resource(uri).await
        }
    };
    (module, method)
}

/// The `skills` module: a [`SkillRef`](mcp_bindgen::SkillRef) per Agent Skill (the URI of its
/// `SKILL.md` and its name), documented with the skill's name and description.
fn skills(capture: &Capture) -> TokenStream {
    let mut names = BTreeSet::new();
    let constants = capture.skills.iter().map(|skill| {
        let mut name = method_name(&skill.name).to_uppercase();
        if name.is_empty() {
            name = "SKILL".into();
        }
        let name = unique(&mut names, &name, "_", |_| true);
        let name = syn::Ident::new(&name, proc_macro2::Span::call_site());
        let files = match &skill.files {
            Some(files) => format!("{} files, each verified when it is read", files.len()),
            None => "files the server generates (`dynamic`: nothing to verify)".to_owned(),
        };
        let text = format!(
            "`{}`: {}\n\nIts `SKILL.md` is at `{}`; the skill has {files}.",
            skill.name,
            dedent(&skill.description),
            skill.uri
        );
        let doc = doc(&text, INNER_DOC_WIDTH);
        let (uri, skill_name) = (&skill.uri, &skill.name);
        quote! {
            #doc
            pub const #name: ::mcp_bindgen::SkillRef = ::mcp_bindgen::SkillRef::new(#uri, #skill_name);
        }
    });
    let module_doc = doc(
        "The server's Agent Skills (the `io.modelcontextprotocol/skills` extension): \
         `McpClient::load(&skills::NAME)` gets a skill's current entry and reads and verifies \
         it.",
        ITEM_DOC_WIDTH,
    );
    quote! {
        #module_doc
        pub mod skills {
            #(#constants)*
        }
    }
}

/// The arguments struct (none for a prompt without arguments) and the method.
fn prompt_method(
    prompt: &Prompt,
    method: &str,
    type_names: &mut BTreeSet<String>,
) -> (Option<TokenStream>, TokenStream) {
    let mut text = prompt
        .description
        .as_deref()
        .map(dedent)
        .unwrap_or_else(|| format!("The `{}` prompt.", prompt.name));
    text.push_str(&format!(
        "\n\nGets the prompt `{}` (`prompts/get`): its messages, typed as the runtime's content.",
        prompt.name
    ));
    let method_doc = doc(&text, METHOD_DOC_WIDTH);
    let method = ident(method);
    let name = &prompt.name;
    let returns = quote! {
        ::std::result::Result<::mcp_bindgen::GetPromptResult, ::mcp_bindgen::Error>
    };
    if prompt.arguments.is_empty() {
        let tokens = quote! {
            #method_doc
            pub async fn #method(&self) -> #returns {
                self.caller
                    .check_catalog(&PROVENANCE, ::mcp_bindgen::drift::Kind::Prompt, #name)
                    .await?;
                self.caller.get_prompt(#name, ::serde_json::Map::new()).await
            }
        };
        return (None, tokens);
    }
    let struct_name = unique(
        type_names,
        &format!("{}Args", type_name(&prompt.name)),
        "",
        |_| true,
    );
    let struct_ident = syn::Ident::new(&struct_name, proc_macro2::Span::call_site());
    let mut fields = Vec::new();
    let mut field_names = BTreeSet::new();
    for argument in &prompt.arguments {
        let field = unique(&mut field_names, &field_name(&argument.name), "_", |_| true);
        let field = ident(&field);
        let key = &argument.name;
        let mut text = argument
            .description
            .as_deref()
            .map(dedent)
            .unwrap_or_else(|| format!("`{key}`."));
        if !argument.required {
            text.push_str(" Optional.");
        }
        let field_doc = doc(&text, INNER_DOC_WIDTH - 4);
        // The prompt's own argument name, as serde writes it when the field's differs.
        let unraw = field.to_string();
        let rename = (unraw.trim_start_matches("r#") != key.as_str())
            .then(|| quote!(#[serde(rename = #key)]));
        if argument.required {
            fields.push(quote! { #field_doc #rename pub #field: ::std::string::String, });
        } else {
            fields.push(quote! {
                #field_doc
                #rename
                #[serde(skip_serializing_if = "Option::is_none")]
                pub #field: ::std::option::Option<::std::string::String>,
            });
        }
    }
    let struct_doc = doc(
        &format!("The arguments of the `{}` prompt.", prompt.name),
        INNER_DOC_WIDTH,
    );
    let args_struct = quote! {
        #struct_doc
        #[derive(Debug, Clone, Default, PartialEq, Eq, ::serde::Serialize)]
        pub struct #struct_ident {
            #(#fields)*
        }
    };
    let tokens = quote! {
        #method_doc
        pub async fn #method(&self, args: &prompts::#struct_ident) -> #returns {
            self.caller
                .check_catalog(&PROVENANCE, ::mcp_bindgen::drift::Kind::Prompt, #name)
                .await?;
            let arguments = ::mcp_bindgen::encode_arguments(#name, args, None)?;
            self.caller.get_prompt(#name, arguments).await
        }
    };
    (Some(args_struct), tokens)
}

fn template_method(template: &ResourceTemplate, method: &str) -> TokenStream {
    let variables = template.variables();
    let mut text = match (&template.title, &template.description) {
        (Some(title), Some(description)) => format!("{title}: {}", dedent(description)),
        (None, Some(description)) => dedent(description),
        (Some(title), None) => format!("{title}."),
        (None, None) => format!("The `{}` resources.", template.name),
    };
    text.push_str(&format!(
        "\n\nReads the resource at `{}` (`resources/read`), the URI made from the arguments \
         (RFC 6570, percent-encoded).",
        template.uri_template
    ));
    if let Some(mime) = &template.mime_type {
        text.push_str(&format!(" Its contents are `{mime}`."));
    }
    let method_doc = doc(&text, METHOD_DOC_WIDTH);
    let method = ident(method);
    let mut params = BTreeSet::new();
    let idents: Vec<syn::Ident> = variables
        .iter()
        .map(|v| {
            // `uri` is the method's own parameter.
            ident(&unique(&mut params, &field_name(v), "_", |name| {
                name != "uri"
            }))
        })
        .collect();
    let uri_template = &template.uri_template;
    let name = &template.name;
    quote! {
        #method_doc
        pub async fn #method(
            &self,
            #(#idents: &str),*
        ) -> ::std::result::Result<::mcp_bindgen::ReadResourceResult, ::mcp_bindgen::Error> {
            self.caller
                .check_catalog(&PROVENANCE, ::mcp_bindgen::drift::Kind::ResourceTemplate, #name)
                .await?;
            let uri = ::mcp_bindgen::uri_template::expand(#uri_template, &[#((#variables, #idents)),*]);
            self.caller.read_resource(&uri).await
        }
    }
}

/// `complete_<prompt>_<argument>` or `complete_<template>_<variable>`: the values the server
/// offers for `argument` of `reference`, from what was typed so far, once the drift check of
/// `checked` (the prompt's or template's kind and name) lets it through.
fn completion_method(
    method: &str,
    what: &str,
    reference: TokenStream,
    checked: TokenStream,
    argument: &str,
) -> TokenStream {
    let method_doc = doc(
        &format!(
            "Completes {what} (`completion/complete`): the values the server offers for `value`, what was typed so far; `context` holds the other arguments chosen already, by name."
        ),
        METHOD_DOC_WIDTH,
    );
    let method = ident(method);
    quote! {
        #method_doc
        pub async fn #method(
            &self,
            value: &str,
            context: &[(&str, &str)],
        ) -> ::std::result::Result<::mcp_bindgen::Completion, ::mcp_bindgen::Error> {
            self.caller.check_catalog(&PROVENANCE, #checked).await?;
            self.caller.complete(&#reference, #argument, value, context).await
        }
    }
}
