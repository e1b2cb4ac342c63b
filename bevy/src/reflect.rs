//! Reflection helpers the world tools share: finding a registered type by its path (with a
//! tool error naming it when it is not there), values to and from JSON in reflection's serde
//! form, and a JSON Schema of a reflected type.

use bevy_ecs::component::ComponentId;
use bevy_ecs::entity::Entity;
use bevy_ecs::reflect::{ReflectComponent, ReflectEvent, ReflectMessage, ReflectResource};
use bevy_ecs::world::World;
use bevy_reflect::enums::VariantInfo;
use bevy_reflect::serde::{TypedReflectDeserializer, TypedReflectSerializer};
use bevy_reflect::{
    PartialReflect, Reflect, TypeInfo, TypeRegistration, TypeRegistry, TypeRegistryArc,
};
use mcp_bindgen::server::ToolError;
use serde::de::DeserializeSeed;
use serde_json::{Map, Value, json};

/// How deep `schema` descends before it answers "any value" (recursive types).
const MAX_DEPTH: usize = 8;

/// The registration of `path`, or a tool error naming the path (`unknown_type`). Both the full
/// type path and a short path the registry finds unambiguous are accepted.
pub(crate) fn registration<'r>(
    registry: &'r TypeRegistry,
    path: &str,
) -> Result<&'r TypeRegistration, ToolError> {
    registry
        .get_with_type_path(path)
        .or_else(|| registry.get_with_short_type_path(path))
        .ok_or_else(|| {
            ToolError::new(format!(
                "unknown type `{path}`: no type with this path is registered for reflection (see components_info)"
            ))
            .with_code("unknown_type")
        })
}

/// A registered component type: its registration, `ReflectComponent` and `ComponentId`.
pub(crate) struct ComponentType<'r> {
    pub(crate) path: &'static str,
    pub(crate) reflect: &'r ReflectComponent,
    pub(crate) id: ComponentId,
}

/// `path` as a component (not a resource) the world knows, or a tool error naming it.
pub(crate) fn component<'r>(
    registry: &'r TypeRegistry,
    world: &mut World,
    path: &str,
) -> Result<ComponentType<'r>, ToolError> {
    let registration = registration(registry, path)?;
    let full = registration.type_info().type_path();
    if registration.data::<ReflectResource>().is_some() {
        return Err(ToolError::new(format!(
            "`{full}` is a resource, not a component: use resource_get / resource_set"
        ))
        .with_code("not_a_component"));
    }
    let Some(reflect) = registration.data::<ReflectComponent>() else {
        return Err(ToolError::new(format!(
            "`{full}` is registered but not as a component (it lacks #[reflect(Component)])"
        ))
        .with_code("not_a_component"));
    };
    let id = reflect.register_component(world);
    Ok(ComponentType {
        path: full,
        reflect,
        id,
    })
}

/// A tool error for an entity that does not exist (`no_such_entity`).
pub(crate) fn no_entity(bits: u64) -> ToolError {
    ToolError::new(format!("entity {bits} does not exist")).with_code("no_such_entity")
}

/// The entity `bits` names, when it exists in `world`.
pub(crate) fn entity(world: &World, bits: u64) -> Result<Entity, ToolError> {
    let entity = Entity::try_from_bits(bits).ok_or_else(|| no_entity(bits))?;
    if world.get_entity(entity).is_err() {
        return Err(no_entity(bits));
    }
    Ok(entity)
}

/// A reflected value as JSON, in reflection's serde form.
pub(crate) fn to_json(
    value: &dyn PartialReflect,
    registry: &TypeRegistry,
    path: &str,
) -> Result<Value, ToolError> {
    serde_json::to_value(TypedReflectSerializer::new(value, registry)).map_err(|e| {
        ToolError::new(format!("`{path}` cannot be written as JSON: {e}"))
            .with_code("not_serializable")
    })
}

/// A reflected value in an answer: a clone of it, written in reflection's serde form straight
/// into the answer's JSON (no `serde_json::Value` on the way); or, for a type that cannot be
/// cloned through reflection, its JSON. Its schema is any JSON value.
pub struct Reflected(Held);

enum Held {
    Clone(Box<dyn Reflect>, TypeRegistryArc),
    Json(Value),
}

impl Reflected {
    /// `value` (of the type at `path`) for an answer.
    pub(crate) fn of(
        value: &dyn PartialReflect,
        registry: &TypeRegistry,
        shared: &TypeRegistryArc,
        path: &str,
    ) -> Result<Self, ToolError> {
        match value.reflect_clone() {
            Ok(clone) => Ok(Reflected(Held::Clone(clone, shared.clone()))),
            Err(_) => to_json(value, registry, path).map(|v| Reflected(Held::Json(v))),
        }
    }
}

impl std::fmt::Debug for Reflected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Held::Clone(value, _) => value.as_partial_reflect().debug(f),
            Held::Json(value) => value.fmt(f),
        }
    }
}

impl serde::Serialize for Reflected {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Held::Clone(value, registry) => {
                TypedReflectSerializer::new(value.as_partial_reflect(), &registry.read())
                    .serialize(serializer)
            }
            Held::Json(value) => value.serialize(serializer),
        }
    }
}

impl schemars::JsonSchema for Reflected {
    fn inline_schema() -> bool {
        <Value as schemars::JsonSchema>::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Value as schemars::JsonSchema>::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Value as schemars::JsonSchema>::json_schema(generator)
    }
}

/// JSON read as a value of the registered type, or a tool error naming the type and what did
/// not fit (`bad_value`).
pub(crate) fn from_json(
    registration: &TypeRegistration,
    registry: &TypeRegistry,
    value: &Value,
    what: &str,
) -> Result<Box<dyn PartialReflect>, ToolError> {
    TypedReflectDeserializer::new(registration, registry)
        .deserialize(value)
        .map_err(|e| {
            ToolError::new(format!(
                "{what} does not fit `{}`: {e}",
                registration.type_info().type_path()
            ))
            .with_code("bad_value")
        })
}

/// What a registered type can be used as: `component`, `resource`, `message`, `event`.
pub(crate) fn kinds(registration: &TypeRegistration) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    if registration.data::<ReflectResource>().is_some() {
        kinds.push("resource");
    } else if registration.data::<ReflectComponent>().is_some() {
        kinds.push("component");
    }
    if registration.data::<ReflectMessage>().is_some() {
        kinds.push("message");
    }
    if registration.data::<ReflectEvent>().is_some() {
        kinds.push("event");
    }
    kinds
}

/// The JSON Schema of a reflected type's serde form (what `to_json` writes and `from_json`
/// reads). Types the schema cannot describe (opaque types without a known JSON form, types
/// deeper than it descends) accept any value.
pub(crate) fn schema(registry: &TypeRegistry, info: &TypeInfo) -> Value {
    let mut schema = schema_at(registry, info, 0);
    if let Value::Object(object) = &mut schema {
        object
            .entry("title")
            .or_insert_with(|| Value::String(info.type_path().to_owned()));
    }
    schema
}

fn child(
    registry: &TypeRegistry,
    type_id: std::any::TypeId,
    info: Option<&TypeInfo>,
    path: &str,
    depth: usize,
) -> Value {
    match registry.get_type_info(type_id).or(info) {
        Some(info) => schema_at(registry, info, depth + 1),
        None => json!({ "description": path }),
    }
}

/// A closed-enough object schema of named fields (a struct, or a struct variant): every field
/// required, each with its own schema.
fn object<'a>(
    registry: &TypeRegistry,
    fields: impl Iterator<Item = &'a bevy_reflect::NamedField>,
    depth: usize,
) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in fields {
        properties.insert(
            field.name().to_owned(),
            child(
                registry,
                field.type_id(),
                field.type_info(),
                field.type_path(),
                depth,
            ),
        );
        required.push(Value::String(field.name().to_owned()));
    }
    json!({ "type": "object", "properties": properties, "required": required })
}

fn schema_at(registry: &TypeRegistry, info: &TypeInfo, depth: usize) -> Value {
    let path = info.type_path();
    if depth > MAX_DEPTH {
        return json!({ "description": path });
    }
    match info {
        TypeInfo::Struct(s) => object(registry, s.iter(), depth),
        TypeInfo::TupleStruct(s) if s.field_len() == 1 => {
            let field = s.field_at(0).expect("one field");
            child(
                registry,
                field.type_id(),
                field.type_info(),
                field.type_path(),
                depth,
            )
        }
        TypeInfo::TupleStruct(s) => {
            let items: Vec<Value> = s
                .iter()
                .map(|f| child(registry, f.type_id(), f.type_info(), f.type_path(), depth))
                .collect();
            tuple(items)
        }
        TypeInfo::Tuple(t) => {
            let items: Vec<Value> = t
                .iter()
                .map(|f| child(registry, f.type_id(), f.type_info(), f.type_path(), depth))
                .collect();
            tuple(items)
        }
        TypeInfo::List(l) => {
            let item = l.item_ty();
            json!({ "type": "array", "items": child(registry, item.id(), l.item_info(), item.path(), depth) })
        }
        TypeInfo::Array(a) => {
            let item = a.item_ty();
            json!({
                "type": "array",
                "items": child(registry, item.id(), a.item_info(), item.path(), depth),
                "minItems": a.capacity(),
                "maxItems": a.capacity(),
            })
        }
        TypeInfo::Set(s) => {
            let item = s.value_ty();
            json!({ "type": "array", "items": child(registry, item.id(), None, item.path(), depth) })
        }
        TypeInfo::Map(m) => {
            let value = m.value_ty();
            json!({
                "type": "object",
                "additionalProperties": child(registry, value.id(), m.value_info(), value.path(), depth),
            })
        }
        TypeInfo::Enum(e) => {
            let table = e.type_path_table();
            let is_option =
                table.module_path() == Some("core::option") && table.ident() == Some("Option");
            let mut any_of = Vec::new();
            let mut units = Vec::new();
            for variant in e.iter() {
                match variant {
                    VariantInfo::Unit(v) => {
                        if is_option {
                            any_of.push(json!({ "type": "null" }));
                        } else {
                            units.push(Value::String(v.name().to_owned()));
                        }
                    }
                    VariantInfo::Tuple(v) if is_option && v.field_len() == 1 => {
                        let f = v.field_at(0).expect("one field");
                        any_of.push(child(
                            registry,
                            f.type_id(),
                            f.type_info(),
                            f.type_path(),
                            depth,
                        ));
                    }
                    VariantInfo::Tuple(v) => {
                        let mut items: Vec<Value> = v
                            .iter()
                            .map(|f| {
                                child(registry, f.type_id(), f.type_info(), f.type_path(), depth)
                            })
                            .collect();
                        let inner = match items.len() {
                            1 => items.remove(0),
                            _ => tuple(items),
                        };
                        any_of.push(tagged(v.name(), inner));
                    }
                    VariantInfo::Struct(v) => {
                        any_of.push(tagged(v.name(), object(registry, v.iter(), depth)));
                    }
                }
            }
            if !units.is_empty() {
                any_of.push(json!({ "type": "string", "enum": units }));
            }
            if any_of.len() == 1 {
                any_of.pop().expect("one schema")
            } else {
                json!({ "anyOf": any_of })
            }
        }
        TypeInfo::Opaque(_) => opaque(path),
    }
}

fn tuple(items: Vec<Value>) -> Value {
    let n = items.len();
    json!({ "type": "array", "prefixItems": items, "minItems": n, "maxItems": n })
}

fn tagged(name: &str, inner: Value) -> Value {
    let mut properties = Map::new();
    properties.insert(name.to_owned(), inner);
    json!({
        "type": "object",
        "properties": properties,
        "required": [name],
        "additionalProperties": false,
    })
}

/// The JSON form of the opaque types whose serde form is known.
fn opaque(path: &str) -> Value {
    let integer = |min: Option<i128>, max: u128| {
        let mut schema = json!({ "type": "integer", "maximum": max });
        if let Some(min) = min {
            schema["minimum"] = json!(min);
        }
        schema
    };
    match path {
        "bool" => json!({ "type": "boolean" }),
        "u8" => integer(Some(0), u8::MAX.into()),
        "u16" => integer(Some(0), u16::MAX.into()),
        "u32" => integer(Some(0), u32::MAX.into()),
        "u64" | "usize" | "u128" => json!({ "type": "integer", "minimum": 0 }),
        "i8" => integer(Some(i8::MIN.into()), u8::MAX as u128 / 2),
        "i16" => integer(Some(i16::MIN.into()), u16::MAX as u128 / 2),
        "i32" => integer(Some(i32::MIN.into()), u32::MAX as u128 / 2),
        "i64" | "isize" | "i128" => json!({ "type": "integer" }),
        "f32" | "f64" => json!({ "type": "number" }),
        "char" => json!({ "type": "string", "minLength": 1, "maxLength": 1 }),
        "alloc::string::String" | "&str" | "alloc::borrow::Cow<str>" | "std::path::PathBuf" => {
            json!({ "type": "string" })
        }
        "bevy_ecs::entity::Entity" => {
            json!({ "type": "integer", "minimum": 0, "description": "an entity's bits" })
        }
        "core::time::Duration" => json!({
            "type": "object",
            "properties": { "secs": { "type": "integer", "minimum": 0 }, "nanos": { "type": "integer", "minimum": 0 } },
            "required": ["secs", "nanos"],
        }),
        _ => json!({ "description": format!("{path} (opaque: any JSON its serde form accepts)") }),
    }
}
