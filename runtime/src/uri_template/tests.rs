//! Unit tests of `uri_template.rs` (a file of their own, left out of the published package).

use super::*;
use serde_json::json;

#[test]
fn check_accepts_levels_one_to_four_and_locates_each_fault() {
    for valid in [
        "game://level",
        "game://entity/{id}",
        "file:///{+path}",
        "map://{x},{y}/{+rest}{#frag}",
        "x{.ext}{/segments*}{;params*}{?q,limit}{&more}",
        "search{?q:3,var.sub,%41b}",
        "{x:9999}",
    ] {
        assert_eq!(check(valid), Ok(()), "{valid}");
        assert!(UriTemplate::parse(valid).is_ok(), "{valid}");
    }
    let fault = |template: &str| {
        let err = check(template).unwrap_err();
        (err.at, err.message)
    };
    let (at, message) = fault("game://entity/{id");
    assert_eq!(at, 14);
    assert!(message.contains("never closed"), "{message}");
    let (at, message) = fault("game://a}b/{id}");
    assert_eq!(at, 8);
    assert!(message.contains("outside an expression"), "{message}");
    let (at, message) = fault("x/{}");
    assert_eq!(at, 2);
    assert!(message.contains("empty"), "{message}");
    let (at, message) = fault("x/{a{b}");
    assert_eq!(at, 4);
    assert!(message.contains("inside"), "{message}");
    let (at, message) = fault("x/{!a}");
    assert_eq!(at, 3);
    assert!(message.contains("reserved"), "{message}");
    let (at, message) = fault("x/{?q,bad name}");
    assert_eq!(at, 6, "the second variable");
    assert!(message.contains("`bad name`"), "{message}");
    for bad in [
        "{a..b}",
        "{.a.}",
        "{a%4}",
        "{a:0}",
        "{a:10000}",
        "{a:x}",
        "{a*:3}",
        "{a*b}",
        "{,a}",
    ] {
        assert!(check(bad).is_err(), "{bad}");
    }
    let shown = check("x/{id").unwrap_err().to_string();
    assert_eq!(
        shown,
        "`x/{id` is not an RFC 6570 URI template: a `{` never closed by `}` (at byte 2)"
    );
}

fn vars(template: &str, uri: &str) -> Option<Value> {
    UriTemplate::new(template).matches(uri).map(Value::Object)
}

#[test]
fn templates_match_uris_of_every_level() {
    assert_eq!(
        vars("test://template/{id}/data", "test://template/123/data"),
        Some(json!({"id": "123"}))
    );
    assert_eq!(
        vars("test://template/{id}/data", "test://template/1/2/data"),
        None
    );
    assert_eq!(
        vars("test://template/{id}/data", "test://other/1/data"),
        None
    );
    assert_eq!(
        vars("level://{name}", "level://dark%20forest"),
        Some(json!({"name": "dark forest"}))
    );
    assert_eq!(
        vars("file:///{+path}", "file:///maps/a/b.json"),
        Some(json!({"path": "maps/a/b.json"}))
    );
    assert_eq!(
        vars("map://{x},{y}", "map://3,4"),
        Some(json!({"x": "3", "y": "4"}))
    );
    assert_eq!(
        vars("map://{x,y}", "map://3,4"),
        Some(json!({"x": "3", "y": "4"}))
    );
    assert_eq!(
        vars("repo://{owner}{/path*}", "repo://me/src/lib.rs"),
        Some(json!({"owner": "me", "path": ["src", "lib.rs"]}))
    );
    assert_eq!(
        vars(
            "search://items{?q,limit}",
            "search://items?q=red%20key&limit=5"
        ),
        Some(json!({"q": "red key", "limit": "5"}))
    );
    assert_eq!(
        vars("search://items{?q,limit}", "search://items"),
        Some(json!({}))
    );
    assert_eq!(
        vars("tags://x{?tag*}", "tags://x?tag=a&tag=b"),
        Some(json!({"tag": ["a", "b"]}))
    );
    assert_eq!(
        vars("tags://x{?tag*}", "tags://x?tag=a"),
        Some(json!({"tag": ["a"]})),
        "an exploded variable is a list even of one"
    );
    assert_eq!(
        vars("doc://{id}{#section}", "doc://7#intro"),
        Some(json!({"id": "7", "section": "intro"}))
    );
    assert_eq!(
        vars("name://{first:3}.txt", "name://abc.txt"),
        Some(json!({"first": "abc"}))
    );
    assert_eq!(
        vars("a.b://{x}", "aXb://1"),
        None,
        "literals are not patterns"
    );
}

#[test]
fn expansion_follows_the_rfc_examples() {
    let vars = [
        ("var", "value"),
        ("hello", "Hello World!"),
        ("path", "/foo/bar"),
        ("empty", ""),
        ("x", "1024"),
        ("y", "768"),
    ];
    for (template, expected) in [
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("{#hello}", "#Hello%20World!"),
        ("map?{x,y}", "map?1024,768"),
        ("{.x,y}", ".1024.768"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{var:3}", "val"),
        ("{undef}", ""),
        ("X{.undef}", "X"),
    ] {
        assert_eq!(expand(template, &vars), expected, "{template}");
    }
    assert_eq!(expand("{x}", &[("x", "é/ü")]), "%C3%A9%2F%C3%BC");
    assert_eq!(expand("{+x}", &[("x", "a%20b c")]), "a%20b%20c");
}

#[test]
fn what_expand_writes_matches_back() {
    let template = "game://{zone}/entity/{id}{?fields}";
    let uri = expand(
        template,
        &[("zone", "dark forest/2"), ("id", "7"), ("fields", "hp,pos")],
    );
    assert_eq!(
        UriTemplate::new(template).matches(&uri).map(Value::Object),
        Some(json!({"zone": "dark forest/2", "id": "7", "fields": "hp,pos"})),
        "{uri}"
    );
}
