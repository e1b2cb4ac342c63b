use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::drift::{DriftReport, Kind, Provenance};
use crate::{CallToolResult, Error};

/// The one seam between generated clients and transports: call a tool by name.
///
/// Implementations return the server's `CallToolResult` as sent, including results with
/// `isError: true`; JSON-RPC errors are [`Error::Protocol`] and everything that prevents an
/// answer is [`Error::Transport`]. Generated methods apply the envelope rules on top.
///
/// ```
/// use mcp_bindgen::{CallToolResult, Error, ToolCaller};
/// use serde_json::{Map, Value};
///
/// /// Answers every call with its own arguments.
/// struct Echo;
///
/// impl ToolCaller for Echo {
///     async fn call_tool(&self, _name: &str, arguments: Map<String, Value>)
///         -> Result<CallToolResult, Error>
///     {
///         Ok(CallToolResult::structured(Value::Object(arguments)))
///     }
/// }
/// ```
pub trait ToolCaller {
    /// Calls the tool `name` with `arguments` and returns the server's result.
    fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> impl Future<Output = Result<CallToolResult, Error>> + Send;

    /// Calls the tool `name` and decodes its result into `T` by the envelope rules, as
    /// [`decode_result`](crate::decode_result) does: a result with `isError: true` is
    /// [`Error::Tool`], a value that does not fit is [`Error::Decode`] naming the JSON path of
    /// the first field that does not. What generated methods call.
    ///
    /// The default calls [`ToolCaller::call_tool`] and decodes the `CallToolResult`.
    /// [`HttpClient`](crate::HttpClient) and [`StdioClient`](crate::StdioClient) decode
    /// straight from the response's bytes instead: no `Value` of the message, and the text
    /// copy of `structuredContent` is not parsed.
    fn call_tool_decoded<T: DeserializeOwned + Send>(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> impl Future<Output = Result<T, Error>> + Send {
        let calling = self.call_tool(name, arguments);
        async move { crate::decode_result(name, calling.await?) }
    }

    /// Calls the tool `name` as a task and returns its handle at once: what a generated
    /// `{tool}_task` method calls, and a generated method of a tool that requires tasks.
    /// [`HttpClient`](crate::HttpClient) and [`StdioClient`](crate::StdioClient) make the
    /// call a task (see [`McpClient::call_tool_as_task`](crate::client::McpClient::call_tool_as_task)).
    ///
    /// The default calls [`ToolCaller::call_tool`] and returns a handle holding its result
    /// ([`TaskHandle::ready`](crate::TaskHandle::ready)): a mock, a fake or a cassette answers
    /// a task's call as it answers any other.
    fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> impl Future<Output = Result<crate::TaskHandle, Error>> + Send {
        let calling = self.call_tool(name, arguments);
        async move { Ok(crate::TaskHandle::ready(name, calling.await?)) }
    }

    /// Gets the prompt `name` with its `arguments` (strings, as MCP sends them): what a
    /// generated prompt method calls. The default fails: a caller that serves only tools
    /// (a mock, a fake, a cassette) has no prompts. [`HttpClient`](crate::HttpClient) and
    /// [`StdioClient`](crate::StdioClient) send `prompts/get`.
    fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> impl Future<Output = Result<crate::GetPromptResult, Error>> + Send {
        let _ = arguments;
        std::future::ready(Err(Error::transport(format!(
            "this caller serves tools only: it cannot get the prompt {name}"
        ))))
    }

    /// Reads the resource at `uri`: what a generated resource method calls. The default
    /// fails, as for [`ToolCaller::get_prompt`]; the client transports send `resources/read`.
    fn read_resource(
        &self,
        uri: &str,
    ) -> impl Future<Output = Result<crate::ReadResourceResult, Error>> + Send {
        std::future::ready(Err(Error::transport(format!(
            "this caller serves tools only: it cannot read {uri}"
        ))))
    }

    /// Asks the server to complete `argument` of `reference` (a prompt or a resource
    /// template) from what was typed so far, `value`, with the arguments chosen already
    /// (`context`: name and value): what a generated `complete_*` method calls. The default
    /// fails, as for [`ToolCaller::get_prompt`]; the client transports send
    /// `completion/complete`.
    fn complete(
        &self,
        reference: &crate::CompletionRef,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
    ) -> impl Future<Output = Result<crate::Completion, Error>> + Send {
        let _ = (reference, value, context);
        std::future::ready(Err(Error::transport(format!(
            "this caller serves tools only: it cannot complete {argument}"
        ))))
    }

    /// Polls the event type `name` once (`events/poll`, the Events extension): the occurrences
    /// after `cursor` (none: from now) that `arguments` hear, at most `max_events`. What a
    /// generated `poll_<event>` method calls. The default fails: a caller that serves only
    /// tools has no events; the client transports send `events/poll`.
    fn poll_events(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        cursor: Option<&str>,
        max_events: Option<u32>,
    ) -> impl Future<Output = Result<crate::events::EventPage, Error>> + Send {
        let _ = (arguments, cursor, max_events);
        std::future::ready(Err(Error::transport(format!(
            "this caller serves tools only: it cannot poll the event {name}"
        ))))
    }

    /// The occurrences of the event type `name` that `arguments` hear, as they come: what a
    /// generated `stream_<event>` method calls. The client transports read them by push or by
    /// poll, as the type offers and `options` say (see [`crate::events::EventStream`]). The
    /// default is a stream that fails at once.
    fn stream_events(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: crate::events::EventOptions,
    ) -> crate::events::EventStream {
        let _ = (arguments, options);
        crate::events::EventStream::failed(Error::transport(format!(
            "this caller serves tools only: it cannot stream the event {name}"
        )))
    }

    /// Before a generated method calls `tool`: checks that the server's tools are still
    /// those the module was generated from (see [`crate::drift`]), and fails with
    /// [`Error::Drift`] when they changed in a way that breaks the call and the client's
    /// policy says to stop. [`HttpClient`](crate::HttpClient) and
    /// [`StdioClient`](crate::StdioClient) check; by default there is nothing to check.
    fn check_tool(
        &self,
        provenance: &'static Provenance,
        tool: &str,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let _ = (provenance, tool);
        std::future::ready(Ok(()))
    }

    /// Before a generated method gets a prompt, reads a resource or a template, or completes
    /// an argument of one: as [`ToolCaller::check_tool`], against the prompts, resources and
    /// templates the module was generated from ([`Provenance::with_catalog`]). `name` is the
    /// prompt's or template's name, or the resource's URI. The client transports check (one
    /// `prompts/list`, `resources/list` and `resources/templates/list` while the last ones are
    /// not fresh); by default there is nothing to check.
    fn check_catalog(
        &self,
        provenance: &'static Provenance,
        kind: Kind,
        name: &str,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let _ = (provenance, kind, name);
        std::future::ready(Ok(()))
    }

    /// The last drift check's report for the module of `provenance` (`None` before the first
    /// check, and for callers that do not check).
    fn drift(&self, provenance: &Provenance) -> Option<DriftReport> {
        let _ = provenance;
        None
    }

    /// Checks for drift now (one `tools/list`) and returns what changed that the module's
    /// methods rely on: `None` when nothing did, for callers that do not check, and under
    /// [`DriftPolicy::Off`](crate::DriftPolicy::Off). [`drift`](Self::drift) keeps the last
    /// report, changed or not.
    fn check_drift(
        &self,
        provenance: &'static Provenance,
    ) -> impl Future<Output = Result<Option<DriftReport>, Error>> + Send {
        let _ = provenance;
        std::future::ready(Ok(None))
    }
}

/// A caller behind a reference or a smart pointer is a caller: every method forwards,
/// the drift check's included (a `Client` over `&HttpClient` or `Arc<StdioClient>` checks too).
macro_rules! forward_tool_caller {
    ($(impl<T: $($bound:path),+> for $wrapper:ty;)+) => {$(
        impl<T: $($bound +)+ ?Sized> ToolCaller for $wrapper {
            fn call_tool(
                &self,
                name: &str,
                arguments: Map<String, Value>,
            ) -> impl Future<Output = Result<CallToolResult, Error>> + Send {
                (**self).call_tool(name, arguments)
            }

            fn call_tool_decoded<R: DeserializeOwned + Send>(
                &self,
                name: &str,
                arguments: Map<String, Value>,
            ) -> impl Future<Output = Result<R, Error>> + Send {
                (**self).call_tool_decoded(name, arguments)
            }

            fn call_tool_as_task(
                &self,
                name: &str,
                arguments: Map<String, Value>,
            ) -> impl Future<Output = Result<crate::TaskHandle, Error>> + Send {
                (**self).call_tool_as_task(name, arguments)
            }

            fn get_prompt(
                &self,
                name: &str,
                arguments: Map<String, Value>,
            ) -> impl Future<Output = Result<crate::GetPromptResult, Error>> + Send {
                (**self).get_prompt(name, arguments)
            }

            fn read_resource(
                &self,
                uri: &str,
            ) -> impl Future<Output = Result<crate::ReadResourceResult, Error>> + Send {
                (**self).read_resource(uri)
            }

            fn complete(
                &self,
                reference: &crate::CompletionRef,
                argument: &str,
                value: &str,
                context: &[(&str, &str)],
            ) -> impl Future<Output = Result<crate::Completion, Error>> + Send {
                (**self).complete(reference, argument, value, context)
            }

            fn check_tool(
                &self,
                provenance: &'static Provenance,
                tool: &str,
            ) -> impl Future<Output = Result<(), Error>> + Send {
                (**self).check_tool(provenance, tool)
            }

            fn check_catalog(
                &self,
                provenance: &'static Provenance,
                kind: Kind,
                name: &str,
            ) -> impl Future<Output = Result<(), Error>> + Send {
                (**self).check_catalog(provenance, kind, name)
            }

            fn drift(&self, provenance: &Provenance) -> Option<DriftReport> {
                (**self).drift(provenance)
            }

            fn check_drift(
                &self,
                provenance: &'static Provenance,
            ) -> impl Future<Output = Result<Option<DriftReport>, Error>> + Send {
                (**self).check_drift(provenance)
            }
        }
    )+};
}

forward_tool_caller! {
    impl<T: ToolCaller, Sync> for &T;
    impl<T: ToolCaller> for Box<T>;
    impl<T: ToolCaller> for Arc<T>;
}
