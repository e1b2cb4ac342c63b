//! Who made a request: the owner of the tasks it makes and the request states it is sent.

/// Whom a task (and a sealed request state, and a listen stream's task notes) belongs to: a
/// digest of the credential the server checked (`Authorization: Bearer`, one of its
/// [`bearer_token`](super::ServerBuilder::bearer_token)s, or the subject an OAuth token speaks
/// for, [`oauth`](super::ServerBuilder::oauth)); `None` where the server checks none
/// (stdio, a loopback server without tokens), whose one client is the only owner: a header the
/// server does not check is no identity, and varying it must not make a new owner. Not the
/// legacy session id: a client that reconnects (a new session) finds its tasks again.
pub(crate) type Owner = Option<[u8; 32]>;

/// The owner of a request whose checked credential is this `Authorization` header value.
pub(crate) fn owner(authorization: Option<&[u8]>) -> Owner {
    let authorization = authorization?;
    let digest = ring::digest::digest(&ring::digest::SHA256, authorization);
    let mut owner = [0; 32];
    owner.copy_from_slice(digest.as_ref());
    Some(owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_differ_by_credential() {
        assert_eq!(owner(None), None);
        assert_ne!(owner(Some(b"a")), owner(Some(b"b")));
        assert_eq!(owner(Some(b"a")), owner(Some(b"a")));
    }
}
