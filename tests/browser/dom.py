"""A small DOM of what `chromium --dump-dom` printed, for the browser test's checks (standard library only)."""
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Element:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.parts = tag, dict(attrs), parent, [], []

    @property
    def classes(self):
        return (self.attrs.get("class") or "").split()

    def text(self):
        return "".join(p if isinstance(p, str) else p.text() for p in self.parts)

    def walk(self):
        for c in self.children:
            yield c
            yield from c.walk()

    def find_all(self, tag=None, cls=None, **attrs):
        def match(e):
            if tag and e.tag != tag:
                return False
            if cls and cls not in e.classes:
                return False
            return all(e.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        return [e for e in self.walk() if match(e)]

    def by_id(self, ident):
        found = self.find_all(id=ident)
        assert found, f"no element with id {ident!r}"
        return found[0]


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {}, None)
        self.at = self.root

    def handle_starttag(self, tag, attrs):
        e = Element(tag, attrs, self.at)
        self.at.children.append(e)
        self.at.parts.append(e)
        if tag not in VOID:
            self.at = e

    def handle_startendtag(self, tag, attrs):
        e = Element(tag, attrs, self.at)
        self.at.children.append(e)
        self.at.parts.append(e)

    def handle_endtag(self, tag):
        e = self.at
        while e is not None and e.tag != tag:
            e = e.parent
        if e is not None and e.parent is not None:
            self.at = e.parent

    def handle_data(self, data):
        self.at.parts.append(data)


def parse(path):
    b = _Builder()
    with open(path, encoding="utf-8") as f:
        b.feed(f.read())
    return b.root
