//! Tokens: `impl mcp_bindgen::server::McpTool for T` (or `McpPrompt`).

use heck::ToSnakeCase;
use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Derive, Input};
use crate::attr::Flag;

/// The name (default: the type's in snake_case), the title and the description (default: the
/// doc comment; none is sent as `""`, as tecs.io.mcp does) both derives write.
fn identity(input: &Input<'_>) -> (String, TokenStream, String) {
    let attrs = &input.attrs;
    let name = attrs.name.as_ref().map_or_else(
        || input.ident.to_string().to_snake_case(),
        syn::LitStr::value,
    );
    let title = match &attrs.title {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let description = attrs
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .or_else(|| input.docs.clone())
        .unwrap_or_default();
    (name, title, description)
}

pub(crate) fn derive(input: &Input<'_>) -> TokenStream {
    let ident = input.ident;
    let attrs = &input.attrs;
    let (name, title, description) = identity(input);
    let flag = |f: Option<Flag>| f.is_some_and(|f| f.value);
    let read_only = flag(attrs.read_only);
    let destructive = flag(attrs.destructive);
    let idempotent = flag(attrs.idempotent);
    let open_world = flag(attrs.open_world);
    let when_crashed = flag(attrs.when_crashed);
    let task_support = match attrs.task.as_ref().map(syn::LitStr::value).as_deref() {
        Some("required") => quote!(::mcp_bindgen::server::TaskSupport::Required),
        Some(_) => quote!(::mcp_bindgen::server::TaskSupport::Optional),
        None => quote!(::mcp_bindgen::server::TaskSupport::Forbidden),
    };
    quote! {
        impl ::mcp_bindgen::server::McpTool for #ident {
            const NAME: &'static str = #name;
            const TITLE: ::core::option::Option<&'static str> = #title;
            const DESCRIPTION: &'static str = #description;
            const ANNOTATIONS: ::mcp_bindgen::server::Annotations = ::mcp_bindgen::server::Annotations {
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            };
            const WHEN_CRASHED: bool = #when_crashed;
            const TASK_SUPPORT: ::mcp_bindgen::server::TaskSupport = #task_support;
        }
    }
}

/// `impl mcp_bindgen::server::McpPrompt for T`: name, title and description as for a tool.
pub(crate) fn derive_prompt(input: &Input<'_>) -> TokenStream {
    let ident = input.ident;
    let (name, title, description) = identity(input);
    quote! {
        impl ::mcp_bindgen::server::McpPrompt for #ident {
            const NAME: &'static str = #name;
            const TITLE: ::core::option::Option<&'static str> = #title;
            const DESCRIPTION: &'static str = #description;
        }
    }
}

/// The impl emitted beside a derive's error: the trait satisfied with neutral values, so the
/// error that says what to mend is the only one.
pub(crate) fn fallback(ident: &syn::Ident, derive: Derive) -> TokenStream {
    match derive {
        Derive::Tool => quote! {
            impl ::mcp_bindgen::server::McpTool for #ident {
                const NAME: &'static str = "";
                const TITLE: ::core::option::Option<&'static str> = ::core::option::Option::None;
                const DESCRIPTION: &'static str = "";
                const ANNOTATIONS: ::mcp_bindgen::server::Annotations =
                    ::mcp_bindgen::server::Annotations {
                        read_only: false,
                        destructive: false,
                        idempotent: false,
                        open_world: false,
                    };
                const WHEN_CRASHED: bool = false;
            }
        },
        Derive::Prompt => quote! {
            impl ::mcp_bindgen::server::McpPrompt for #ident {
                const NAME: &'static str = "";
                const TITLE: ::core::option::Option<&'static str> = ::core::option::Option::None;
                const DESCRIPTION: &'static str = "";
            }
        },
    }
}
