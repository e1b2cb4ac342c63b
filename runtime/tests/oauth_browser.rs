//! `BrowserSignIn`, the ready authorization step: a scripted `$BROWSER`
//! (`fixtures/scripted_browser.py`) approves, declines, or first sends a forged redirect; with
//! no browser a person opens the printed URL; nobody comes back before the timeout.

use std::io::{Read, Write};
use std::time::Duration;

use mcp_bindgen::Error;
use mcp_bindgen::oauth::{AuthorizationRequest, BrowserSignIn};

const BROWSER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/scripted_browser.py"
);

/// An authorization request as the client makes one: the authorization server's URL with the
/// redirect URI and a state.
fn request(sign_in: &BrowserSignIn, state: &str) -> AuthorizationRequest {
    let redirect = sign_in.redirect_uri();
    let url = format!(
        "https://auth.example/authorize?response_type=code&client_id=app&redirect_uri={}&state={state}",
        redirect.replace(':', "%3A").replace('/', "%2F")
    );
    AuthorizationRequest::new(url, redirect)
}

/// Signs in through the browser script in `mode`: the result and the statuses the script saw
/// (its `requests` of them: the script logs each after its answer, so they are waited for,
/// 30 s at most).
fn scripted(mode: &str, state: &str, requests: usize) -> (Result<String, Error>, Vec<String>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("browser.log");
    let sign_in = BrowserSignIn::new()
        .expect("listens")
        .browser(format!("python3 {BROWSER} {mode} {}", log.display()))
        .timeout(Duration::from_secs(60));
    let result = pollster::block_on(sign_in.authorize(request(&sign_in, state)));
    (result, logged(&log, requests))
}

/// The statuses the browser script logged, once there are `requests` of them (30 s at most).
fn logged(log: &std::path::Path, requests: usize) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let seen: Vec<String> = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect();
        if seen.len() >= requests || std::time::Instant::now() >= deadline {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_scripted_browser_approves_and_the_redirect_is_returned() {
    let (result, seen) = scripted("approve", "s1", 1);
    let url = result.expect("signed in");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert!(url.ends_with("/callback?code=c0de&state=s1"), "{url}");
    assert_eq!(seen, ["200 /callback?code=c0de&state=s1"]);
}

/// Another path, then a redirect with another state (a forged or stale one): answered 404 and
/// 400, and the wait goes on to the real redirect.
#[test]
fn a_redirect_with_another_state_is_refused_and_the_wait_goes_on() {
    let (result, seen) = scripted("forged-then-approve", "s2", 3);
    let url = result.expect("signed in");
    assert!(url.ends_with("/callback?code=c0de&state=s2"), "{url}");
    assert_eq!(
        seen,
        [
            "404 /favicon.ico",
            "400 /callback?code=stolen&state=not-s2",
            "200 /callback?code=c0de&state=s2",
        ]
    );
}

/// Two sign-ins at once through clones of one `BrowserSignIn` (one listener): they take
/// turns, so each gets the redirect its own browser sent, and neither sees a 400.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sign_ins_at_once_take_turns_and_each_gets_its_own_redirect() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("browser.log");
    let first = BrowserSignIn::new()
        .expect("listens")
        .browser(format!("python3 {BROWSER} approve {}", log.display()))
        .timeout(Duration::from_secs(30));
    let second = first.clone();
    let (a, b) = tokio::join!(
        first.authorize(request(&first, "first")),
        second.authorize(request(&second, "second")),
    );
    assert!(a.expect("first signed in").ends_with("state=first"));
    assert!(b.expect("second signed in").ends_with("state=second"));
    let mut seen = logged(&log, 2);
    seen.sort();
    assert_eq!(
        seen,
        [
            "200 /callback?code=c0de&state=first",
            "200 /callback?code=c0de&state=second",
        ]
    );
}

#[test]
fn a_declined_sign_in_is_an_auth_error_naming_why() {
    let (result, seen) = scripted("decline", "s3", 1);
    let error = result.expect_err("declined");
    assert!(matches!(error, Error::Auth { .. }), "{error:?}");
    let text = error.to_string();
    assert!(
        text.contains("access_denied") && text.contains("the person said no"),
        "{text}"
    );
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].starts_with("200 "), "{seen:?}");
}

/// No browser starts: the printed URL is the way in, and a person who opens it (here, the
/// test, requesting the redirect itself) completes the sign-in.
#[test]
fn without_a_browser_the_printed_url_still_works() {
    let sign_in = BrowserSignIn::new()
        .expect("listens")
        .browser("/nonexistent/browser")
        .timeout(Duration::from_secs(60));
    let redirect = sign_in.redirect_uri();
    let port = redirect
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/callback")
        .to_owned();
    let person = std::thread::spawn(move || {
        let mut stream =
            std::net::TcpStream::connect(format!("127.0.0.1:{port}")).expect("connects");
        write!(
            stream,
            "GET /callback?code=typed&state=s4 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        )
        .expect("writes");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    });
    let url = pollster::block_on(sign_in.authorize(request(&sign_in, "s4"))).expect("signed in");
    assert!(url.ends_with("/callback?code=typed&state=s4"), "{url}");
    let answer = person.join().expect("the person");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("Signed in"), "{answer}");
}

#[test]
fn nobody_coming_back_ends_at_the_timeout() {
    let sign_in = BrowserSignIn::new()
        .expect("listens")
        .browser("true")
        .timeout(Duration::from_millis(200));
    let error = pollster::block_on(sign_in.authorize(request(&sign_in, "s5")))
        .expect_err("nobody came back");
    assert!(matches!(error, Error::Auth { .. }), "{error:?}");
    assert!(error.to_string().contains("no approval within"), "{error}");
}

/// An authorization URL without a state cannot be checked: refused before the browser opens.
#[test]
fn an_authorization_url_without_a_state_is_refused() {
    let sign_in = BrowserSignIn::new().expect("listens").browser("true");
    let error = pollster::block_on(sign_in.authorize(AuthorizationRequest::new(
        "https://auth.example/authorize?client_id=app",
        sign_in.redirect_uri(),
    )))
    .expect_err("no state");
    assert!(error.to_string().contains("no state"), "{error}");
}
