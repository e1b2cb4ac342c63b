//! The schema idioms real servers write (`fixtures/edge/idioms.tools.json`), each typed: a
//! real call's arguments decode into the generated type, and encode back to the same JSON.

use mcp_bindgen_tests::idioms::types;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// `arguments` decode into `T` and encode back unchanged.
fn round_trip<T: Serialize + DeserializeOwned + std::fmt::Debug>(arguments: Value) -> T {
    let typed: T = serde_json::from_value(arguments.clone())
        .unwrap_or_else(|e| panic!("{arguments} does not decode: {e}"));
    let again = serde_json::to_value(&typed).expect("encodes");
    assert_eq!(again, arguments, "{typed:?}");
    typed
}

#[test]
fn a_union_of_string_consts_with_a_default_is_an_enum() {
    let args: types::ConstUnionWithDefaultArgs =
        round_trip(json!({"query": "rust", "safesearch": "strict"}));
    assert_eq!(
        args.safesearch,
        types::ConstUnionWithDefaultArgsSafesearch::Strict
    );
    // The default is kept.
    let args: types::ConstUnionWithDefaultArgs =
        serde_json::from_value(json!({"query": "rust"})).expect("decodes");
    assert_eq!(
        args.safesearch,
        types::ConstUnionWithDefaultArgsSafesearch::Moderate
    );
    assert!(
        serde_json::from_value::<types::ConstUnionWithDefaultArgs>(
            json!({"query": "rust", "safesearch": "loose"})
        )
        .is_err(),
        "a value outside the union does not decode"
    );
}

#[test]
fn a_union_of_untyped_consts_is_an_enum() {
    let args: types::ConstUnionUntypedArgs = round_trip(json!({"mode": "thorough", "level": 3}));
    assert_eq!(args.mode, types::ConstUnionUntypedArgsMode::Thorough);
    assert!(
        serde_json::from_value::<types::ConstUnionUntypedArgs>(json!({"mode": "fast", "level": 4}))
            .is_err()
    );
}

#[test]
fn default_null_on_a_non_null_type_is_optional_without_a_default() {
    let args: types::DefaultNullArgs = round_trip(json!({"issue_key": "PROJ-123"}));
    assert_eq!(args.visibility, None);
    assert_eq!(args.public, None);
    let args: types::DefaultNullArgs = round_trip(json!({
        "issue_key": "PROJ-123", "visibility": "group", "public": true,
        "labels": ["a", "b"], "limit": 5
    }));
    assert_eq!(args.public, Some(true));
}

#[test]
fn defaults_that_do_not_fit_are_dropped_and_the_tool_stays_typed() {
    let args: types::DefaultMisfitArgs = round_trip(json!({
        "count": 3, "ratio": 0.5, "tags": ["x"], "color": "green", "keep": true
    }));
    assert_eq!(args.count, Some(3));
    let args: types::DefaultMisfitArgs = serde_json::from_value(json!({})).expect("decodes");
    assert_eq!(args.count, None, "the misfit default \"10\" is not used");
    assert!(!args.keep, "a default that fits is kept");
}

#[test]
fn three_spellings_of_nullable_are_options() {
    let args: types::NullableFormsArgs =
        round_trip(json!({"a": "x", "b": 2, "c": "y", "d": {"x": 1}}));
    assert_eq!(args.b, Some(2));
    // `null` is accepted where the schema allows it, even for required members.
    let args: types::NullableFormsArgs =
        serde_json::from_value(json!({"a": null, "c": null, "d": null})).expect("decodes");
    assert_eq!((args.a, args.c, args.d), (None, None, None));
}

#[test]
fn examples_extension_keys_and_titles_do_not_change_the_shape() {
    let args: types::AnnotationsArgs =
        round_trip(json!({"name": "alice", "size": 2, "nested": {"k": "v"}}));
    assert_eq!(args.size, Some(2));
    let nested: Option<types::AnnotationsNestedThing> = args.nested;
    assert_eq!(nested.and_then(|n| n.k).as_deref(), Some("v"));
}

#[test]
fn openapi_ref_chains_and_all_of_compositions_are_typed() {
    let id = "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
    let args: types::OpenapiRefsArgs = round_trip(json!({
        "page": id,
        "filter": {"created_by": {"id": id, "name": "Ada"}, "status": "open"}
    }));
    assert_eq!(args.page.to_string(), id);
    let filter = args.filter.expect("filter");
    assert_eq!(filter.status, types::OpenapiRefsStatus::Open);
    assert!(
        serde_json::from_value::<types::OpenapiRefsArgs>(json!({"page": "not-a-uuid"})).is_err()
    );
}

/// A `$ref` to `#/$defs/grid%20cell` names the definition `grid cell` (the pointer is
/// percent-encoded inside the URI fragment): the generator types it, and the generated client
/// checks the argument against it before anything is sent.
#[test]
fn a_percent_encoded_ref_is_typed_and_checked_before_the_call() {
    use std::sync::Arc;

    use mcp_bindgen::mock::MockCaller;
    use mcp_bindgen_tests::idioms::Client;

    let mock = Arc::new(MockCaller::new());
    let client = Client::new(mock.clone());
    let outside = types::EncodedRefArgs {
        cell: types::EncodedRefGridCell(12),
    };
    let error = pollster::block_on(client.encoded_ref(&outside)).expect_err("12 is over 9");
    assert!(
        error.to_string().contains("maximum"),
        "the definition's bound is what refuses it: {error}"
    );
    assert!(mock.calls().is_empty(), "nothing was sent");
    mock.push(Ok(serde_json::from_value(
        json!({"content": [], "structuredContent": {"ok": true}}),
    )
    .expect("a result")));
    let inside = types::EncodedRefArgs {
        cell: types::EncodedRefGridCell(9),
    };
    pollster::block_on(client.encoded_ref(&inside)).expect("9 is inside");
    assert_eq!(mock.calls().len(), 1);
}
