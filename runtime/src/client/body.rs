//! Reading an answer's body within a bound, for the HTTP transport and OAuth alike: what a
//! server sends is read only up to what the client allows.

use crate::Error;

/// How much of an error answer's body is read, for its message (the rest is left unread).
const REFUSAL_BYTES: usize = 64 * 1024;

/// Reads `response`'s body, refusing one over `limit` bytes (named `limit_name` in the error):
/// at once when its `Content-Length` says so, else as soon as the limit is passed, before the
/// rest is read.
pub(crate) async fn body_within(
    mut response: reqwest::Response,
    limit: usize,
    what: &str,
    limit_name: &str,
) -> Result<bytes::Bytes, Error> {
    let too_large = || {
        Error::transport(format!(
            "{what}: the answer is larger than {limit} bytes ({limit_name}): not read further"
        ))
    };
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(too_large());
    }
    let mut body = bytes::BytesMut::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| Error::web(format!("{what}: the body broke off"), e))?
    {
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// The text of an error answer's body, its first [`REFUSAL_BYTES`] (never an error: a body that
/// breaks off gives what came).
pub(crate) async fn refusal_text(mut response: reqwest::Response) -> String {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        let room = REFUSAL_BYTES - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() == REFUSAL_BYTES {
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}
