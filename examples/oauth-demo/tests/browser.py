"""A person at the browser, for the OAuth demo's tests: `browser.py LOG DECISION URL` opens URL
(the authorization server's sign-in page), types a name, answers DECISION (`allow` or `deny`)
as a person would click, and follows the redirect back to the application's listener on
127.0.0.1. Each URL it is asked to open is appended to LOG. Only the standard library."""
import sys
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser


class Form(HTMLParser):
    def __init__(self):
        super().__init__()
        self.action = None
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.action = attrs.get("action")
        if tag == "input" and attrs.get("name"):
            self.fields[attrs["name"]] = attrs.get("value", "")


log, decision, url = sys.argv[1:4]
with open(log, "a") as f:
    f.write(url + "\n")
page = urllib.request.urlopen(url, timeout=30).read().decode()
form = Form()
form.feed(page)
if form.action is None:
    sys.exit("no sign-in form on " + url)
fields = dict(form.fields, name="Ann", decision=decision)
try:
    # The answer is a redirect to the application's loopback listener, which urllib follows.
    urllib.request.urlopen(
        urllib.parse.urljoin(url, form.action),
        data=urllib.parse.urlencode(fields).encode(),
        timeout=30,
    ).read()
except urllib.error.HTTPError:
    # The listener may answer a declined sign-in with an error status; the application has
    # its answer either way.
    pass
