//! The app's MCP event types (the Events extension, 2026-07-28): a Bevy message type forwarded
//! as it is written ([`McpEventsExt::add_mcp_event`]), and a component's changes
//! ([`McpEventsExt::add_mcp_component_event`], what `bevy_brp_mcp`'s watch does by polling). A
//! system in `PostUpdate` forwards what the frame wrote; while no client listens it does one
//! atomic load and drops the frame's messages unread.

use std::sync::PoisonError;

use bevy_app::{App, PostUpdate};
use bevy_ecs::component::Component;
use bevy_ecs::entity::Entity;
use bevy_ecs::message::{Message, MessageReader};
use bevy_ecs::query::Changed;
use bevy_ecs::resource::Resource;
use bevy_ecs::system::{Query, Res};
use bevy_ecs::world::World;
use mcp_bindgen::server::{Emitter, EventType, Registry};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::McpServer;

/// The emitter of the event type whose payload is `P`, once the server serves it.
#[derive(Resource)]
pub(crate) struct McpEmitter<P>(Emitter<P>);

/// Puts an event type's emitter in the world, once it is registered.
type Insert = Box<dyn FnOnce(&mut World) + Send + Sync>;
/// Registers an event type; returns what puts its emitter in the world.
pub(crate) type EventRegistration = Box<dyn FnOnce(&mut Registry<World>) -> Insert + Send + Sync>;

/// Event types added before the server started.
#[derive(Resource, Default)]
pub(crate) struct PendingEvents(pub(crate) Vec<EventRegistration>);

/// A component's new value, for [`McpEventsExt::add_mcp_component_event`].
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ComponentChanged<C> {
    /// The entity (its `to_bits`, as the world tools name entities).
    pub entity: u64,
    /// The component's value after the change.
    pub value: C,
}

/// Which entities' changes a subscription hears.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EntityFilter {
    /// Only this entity's (its id, as the world tools give it); every entity's when absent.
    pub entity: Option<u64>,
}

/// Event types on an [`App`].
pub trait McpEventsExt {
    /// Serves the Bevy message type `M` as the MCP event type `name`: every `M` written in a
    /// frame reaches the clients that stream or poll it, typed by `M`'s schema. Adds the
    /// message type to the app too. May be called before or after adding the plugin.
    fn add_mcp_event<M>(&mut self, name: &str) -> &mut Self
    where
        M: Message + Clone + Serialize + JsonSchema;

    /// Serves the changes of the component `C` as the MCP event type `name`: each frame, each
    /// entity whose `C` was added or changed, with its new value
    /// ([`ComponentChanged`]); a subscription may name one entity ([`EntityFilter`]).
    fn add_mcp_component_event<C>(&mut self, name: &str) -> &mut Self
    where
        C: Component + Clone + Serialize + JsonSchema;
}

impl McpEventsExt for App {
    fn add_mcp_event<M>(&mut self, name: &str) -> &mut Self
    where
        M: Message + Clone + Serialize + JsonSchema,
    {
        self.add_message::<M>();
        let name = name.to_owned();
        add_event(
            self.world_mut(),
            Box::new(move |registry| {
                let emitter = registry.register_event(EventType::<M>::new(name));
                Box::new(move |world| world.insert_resource(McpEmitter(emitter)))
            }),
        );
        self.add_systems(PostUpdate, forward::<M>)
    }

    fn add_mcp_component_event<C>(&mut self, name: &str) -> &mut Self
    where
        C: Component + Clone + Serialize + JsonSchema,
    {
        let name = name.to_owned();
        add_event(
            self.world_mut(),
            Box::new(move |registry| {
                let emitter = registry.register_event(
                    EventType::<ComponentChanged<C>, EntityFilter>::new(name).filter(
                        |changed, filter| filter.entity.is_none_or(|e| e == changed.entity),
                    ),
                );
                Box::new(move |world| world.insert_resource(McpEmitter(emitter)))
            }),
        );
        self.add_systems(PostUpdate, watch::<C>)
    }
}

/// Registers now when the server runs, else when it starts.
fn add_event(world: &mut World, register: EventRegistration) {
    if let Some(mut server) = world.get_resource_mut::<McpServer>() {
        let server = server
            .server
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let insert = register(server.registry_mut());
        insert(world);
        return;
    }
    world
        .get_resource_or_insert_with(PendingEvents::default)
        .0
        .push(register);
}

/// Forwards the frame's `M`s while someone listens; drops them unread otherwise.
fn forward<M: Message + Clone + Serialize>(
    mut messages: MessageReader<'_, '_, M>,
    emitter: Option<Res<'_, McpEmitter<M>>>,
) {
    match emitter {
        Some(emitter) if emitter.0.is_heard() => {
            for message in messages.read() {
                emitter.0.emit(message.clone());
            }
        }
        _ => messages.clear(),
    }
}

/// Emits each changed `C` while someone listens.
fn watch<C: Component + Clone + Serialize>(
    changed: Query<'_, '_, (Entity, &C), Changed<C>>,
    emitter: Option<Res<'_, McpEmitter<ComponentChanged<C>>>>,
) {
    let Some(emitter) = emitter.filter(|e| e.0.is_heard()) else {
        return;
    };
    for (entity, value) in &changed {
        emitter.0.emit(ComponentChanged {
            entity: entity.to_bits(),
            value: value.clone(),
        });
    }
}
