"""A browser for the OAuth interop test: `oauth_browser.py LOG CA URL` opens URL trusting the
test's CA, follows the redirects (the authorization server approves at once, then sends it to
the client's loopback listener), as a person approving would, and appends URL to LOG."""
import ssl
import sys
import urllib.request

log, ca, url = sys.argv[1:4]
with open(log, "a") as f:
    f.write(url + "\n")
context = ssl.create_default_context(cafile=ca)
opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context))
opener.open(url, timeout=30).read()
