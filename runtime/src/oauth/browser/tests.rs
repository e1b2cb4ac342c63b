//! Unit tests of `browser.rs` (a file of their own, left out of the published package).

use super::*;

/// An authorization URL as servers send them: several `&`-separated parameters.
const URL: &str = "https://auth.example/authorize?response_type=code&client_id=c&state=s1\
                   &code_challenge=x&code_challenge_method=S256";

#[test]
fn each_platform_opens_the_url_as_one_argument_without_a_shell() {
    let argv = |platform| opener(None, platform, URL).expect("an https URL");
    assert_eq!(
        argv(Platform::Windows),
        ["rundll32", "url.dll,FileProtocolHandler", URL],
        "no cmd.exe: it would cut the URL at its first & and run the rest"
    );
    assert_eq!(argv(Platform::MacOs), ["open", URL]);
    assert_eq!(argv(Platform::Unix), ["xdg-open", URL]);
    for platform in [Platform::Windows, Platform::MacOs, Platform::Unix] {
        let argv = argv(platform);
        assert!(
            !argv
                .iter()
                .any(|a| a == "cmd" || a == "/C" || a == "sh" || a == "-c"),
            "{argv:?}"
        );
        assert_eq!(
            argv.last().map(String::as_str),
            Some(URL),
            "the URL whole, last"
        );
    }
}

#[test]
fn a_browser_command_gets_the_url_last_and_a_blank_one_falls_back() {
    assert_eq!(
        opener(Some("firefox --new-window"), Platform::Windows, URL).unwrap(),
        ["firefox", "--new-window", URL]
    );
    assert_eq!(
        opener(Some("  "), Platform::Unix, URL).unwrap(),
        ["xdg-open", URL]
    );
}

#[test]
fn a_browser_command_is_split_into_words_as_a_shell_would() {
    assert_eq!(
        opener(
            Some("'/opt/my browser/run' --new-window"),
            Platform::Unix,
            URL
        )
        .unwrap(),
        ["/opt/my browser/run", "--new-window", URL]
    );
    assert_eq!(
        words(r#"python3 "C:\\Program Files\\b.py" a\ b "say \"hi\"" '' x"#),
        [
            "python3",
            "C:\\Program Files\\b.py",
            "a b",
            "say \"hi\"",
            "",
            "x"
        ]
    );
    assert_eq!(words("  spaced\tout  "), ["spaced", "out"]);
    assert_eq!(words("'unclosed quote"), ["unclosed quote"]);
    assert!(words("   ").is_empty());
}

#[test]
fn only_web_urls_are_opened() {
    for url in [
        "file:///C:/Windows/System32/calc.exe",
        "C:\\Windows\\System32\\calc.exe",
        "javascript:alert(1)",
        "ms-settings:",
        "not a url",
    ] {
        for platform in [Platform::Windows, Platform::MacOs, Platform::Unix] {
            assert_eq!(opener(None, platform, url), None, "{url} on {platform:?}");
        }
    }
    assert!(
        opener(
            None,
            Platform::Unix,
            "http://127.0.0.1:8080/authorize?state=s"
        )
        .is_some()
    );
}
