//! [`ToolDescriptor`]: a tool as a generated module knows it, and the calls its methods make.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::drift::Provenance;
use crate::envelope::{call_checked, encode_arguments};
use crate::{CallToolResult, Error, TaskHandle, ToolCaller, ToolSchema};

/// One tool of a generated module: its name, its input schema, and the module's
/// [`Provenance`], which the drift guard checks the tool against before each call.
///
/// A generated module holds one `static` descriptor per tool, and each generated method is a
/// call of one of its methods: [`Self::call`] for the typed method, [`Self::call_raw`] for
/// `_raw`, [`Self::start_task`] and [`Self::call_raw_as_task`] for a tool that runs as a task.
/// Each call takes the same steps, in order, and sends nothing when one fails:
///
/// 1. the arguments are serialised to a JSON object and checked against the input schema
///    ([`encode_arguments`]);
/// 2. the caller's drift guard checks the tool against the server's list
///    ([`ToolCaller::check_tool`]);
/// 3. the tool is called, and its result decoded by the envelope rules (see the crate docs).
///
/// ```
/// use mcp_bindgen::{CallToolResult, Error, Provenance, ToolCaller, ToolDescriptor, ToolSchema};
/// use serde_json::{Map, Value, json};
///
/// static SCHEMA: ToolSchema = ToolSchema::new(r#"{"type":"object","required":["x"]}"#);
/// static PROVENANCE: Provenance = Provenance::new("by hand", "", &["echo"], "[]");
/// static ECHO: ToolDescriptor = ToolDescriptor::new("echo", &SCHEMA, &PROVENANCE);
///
/// /// Answers every call with its own arguments.
/// struct Echo;
///
/// impl ToolCaller for Echo {
///     async fn call_tool(&self, _: &str, arguments: Map<String, Value>)
///         -> Result<CallToolResult, Error>
///     {
///         Ok(CallToolResult::structured(Value::Object(arguments)))
///     }
/// }
///
/// # pollster::block_on(async {
/// let echoed: Value = ECHO.call(&Echo, &json!({ "x": 1 })).await?;
/// assert_eq!(echoed, json!({ "x": 1 }));
/// // The schema requires `x`: nothing is sent.
/// let refused = ECHO.call::<Value, _>(&Echo, &json!({})).await.unwrap_err();
/// assert!(matches!(refused, Error::InvalidArguments { .. }));
/// # Ok::<(), Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct ToolDescriptor {
    name: &'static str,
    input_schema: &'static ToolSchema,
    provenance: &'static Provenance,
}

impl ToolDescriptor {
    /// The tool `name`, whose arguments `input_schema` checks, of the module `provenance`
    /// describes.
    pub const fn new(
        name: &'static str,
        input_schema: &'static ToolSchema,
        provenance: &'static Provenance,
    ) -> Self {
        ToolDescriptor {
            name,
            input_schema,
            provenance,
        }
    }

    /// The tool's name, as the server lists it.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The tool's input schema, as the server sent it.
    pub const fn input_schema(&self) -> &'static ToolSchema {
        self.input_schema
    }

    /// The provenance of the module the tool belongs to.
    pub const fn provenance(&self) -> &'static Provenance {
        self.provenance
    }

    /// Steps 1 and 2: the checked arguments, once the drift guard let the call through.
    async fn arguments<C, A>(&self, caller: &C, args: &A) -> Result<Map<String, Value>, Error>
    where
        C: ToolCaller + ?Sized,
        A: Serialize + ?Sized,
    {
        let arguments = encode_arguments(self.name, args, Some(self.input_schema))?;
        caller.check_tool(self.provenance, self.name).await?;
        Ok(arguments)
    }

    /// Calls the tool with `args` and decodes its result into `T`
    /// ([`ToolCaller::call_tool_decoded`]): what a generated method does.
    pub async fn call<T, C>(&self, caller: &C, args: &(impl Serialize + ?Sized)) -> Result<T, Error>
    where
        T: DeserializeOwned + Send,
        C: ToolCaller + ?Sized,
    {
        let arguments = self.arguments(caller, args).await?;
        caller.call_tool_decoded(self.name, arguments).await
    }

    /// Calls the tool with `args` and returns its result as sent, a result with
    /// `isError: true` being [`Error::Tool`] ([`call_checked`]): what a generated `_raw`
    /// method does.
    pub async fn call_raw<C>(
        &self,
        caller: &C,
        args: &(impl Serialize + ?Sized),
    ) -> Result<CallToolResult, Error>
    where
        C: ToolCaller + ?Sized,
    {
        let arguments = self.arguments(caller, args).await?;
        call_checked(caller, self.name, arguments).await
    }

    /// Starts the tool as a task and returns its handle, its result to be decoded into `T`
    /// ([`ToolCaller::call_tool_as_task`]): what a generated `_task` method does.
    pub async fn start_task<T, C>(
        &self,
        caller: &C,
        args: &(impl Serialize + ?Sized),
    ) -> Result<TaskHandle<T>, Error>
    where
        T: DeserializeOwned,
        C: ToolCaller + ?Sized,
    {
        let arguments = self.arguments(caller, args).await?;
        Ok(caller
            .call_tool_as_task(self.name, arguments)
            .await?
            .typed())
    }

    /// Runs the tool as a task, waits for it and returns its result as sent
    /// ([`TaskHandle::wait_raw`]): the `_raw` method of a tool that runs only as a task.
    pub async fn call_raw_as_task<C>(
        &self,
        caller: &C,
        args: &(impl Serialize + ?Sized),
    ) -> Result<CallToolResult, Error>
    where
        C: ToolCaller + ?Sized,
    {
        let arguments = self.arguments(caller, args).await?;
        caller
            .call_tool_as_task(self.name, arguments)
            .await?
            .wait_raw()
            .await
    }
}

/// The arguments of a tool that takes none: an empty JSON object when sent, and any object
/// when received (the input schema says which are refused).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NoArguments {}

/// One Agent Skill a generated module names (its `skills` module holds one per skill the
/// capture listed): the URI of its `SKILL.md` and its name. Loading it is one call,
/// `McpClient::load(&skills::PLAY)` (feature `client`), which gets the skill's current
/// entry, checks that it is still the skill of that name, and reads and verifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SkillRef {
    uri: &'static str,
    name: &'static str,
}

impl SkillRef {
    /// The skill `name` whose `SKILL.md` is at `uri`.
    pub const fn new(uri: &'static str, name: &'static str) -> Self {
        SkillRef { uri, name }
    }

    /// The URI of its `SKILL.md`.
    pub const fn uri(&self) -> &'static str {
        self.uri
    }

    /// Its name, as the module was generated.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}
