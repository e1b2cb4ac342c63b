use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};

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
}

impl<T: ToolCaller + ?Sized + Sync> ToolCaller for &T {
    fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> impl Future<Output = Result<CallToolResult, Error>> + Send {
        (**self).call_tool(name, arguments)
    }
}

impl<T: ToolCaller + ?Sized> ToolCaller for Box<T> {
    fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> impl Future<Output = Result<CallToolResult, Error>> + Send {
        (**self).call_tool(name, arguments)
    }
}

impl<T: ToolCaller + ?Sized> ToolCaller for Arc<T> {
    fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> impl Future<Output = Result<CallToolResult, Error>> + Send {
        (**self).call_tool(name, arguments)
    }
}
