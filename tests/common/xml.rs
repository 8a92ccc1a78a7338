//! A small, strict XML reader for checking the reports the binary writes (JUnit): elements,
//! double- or single-quoted attributes, text with the five predefined entities, one root.
//! Anything else (a stray `<` or `&`, an unknown entity, mismatched tags, a control character)
//! is an error naming the byte offset.

/// An element.
#[derive(Debug)]
pub struct Node {
    /// Its name.
    pub name: String,
    /// Its attributes, in order, unescaped.
    pub attrs: Vec<(String, String)>,
    /// Its child elements, in order.
    pub children: Vec<Node>,
    /// Its text, unescaped (all of it, concatenated).
    pub text: String,
}

impl Node {
    /// The attribute `name`'s value.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The children named `name`.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
}

struct Reader<'a> {
    s: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("byte {}: {what}", self.at))
    }

    fn rest(&self) -> &str {
        &self.s[self.at..]
    }

    fn skip_space(&mut self) {
        let n = self.rest().len() - self.rest().trim_start().len();
        self.at += n;
    }

    fn name(&mut self) -> Result<String, String> {
        let n = self
            .rest()
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.')))
            .unwrap_or(self.rest().len());
        if n == 0 {
            return self.err("expected a name");
        }
        let name = self.rest()[..n].to_string();
        self.at += n;
        Ok(name)
    }

    fn unescape(&self, raw: &str, base: usize) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = raw;
        let mut at = base;
        while let Some(i) = rest.find(['&', '<']) {
            out.push_str(&rest[..i]);
            if rest[i..].starts_with('<') {
                return Err(format!("byte {}: `<` in text or a value", at + i));
            }
            let end = rest[i..]
                .find(';')
                .ok_or(format!("byte {}: `&` that starts no entity", at + i))?;
            out.push(match &rest[i + 1..i + end] {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                e => return Err(format!("byte {}: unknown entity &{e};", at + i)),
            });
            at += i + end + 1;
            rest = &rest[i + end + 1..];
        }
        out.push_str(rest);
        if let Some(c) = out
            .chars()
            .find(|&c| c < ' ' && !matches!(c, '\t' | '\n' | '\r'))
        {
            return Err(format!("near byte {base}: control character {c:?}"));
        }
        Ok(out)
    }

    fn element(&mut self) -> Result<Node, String> {
        if !self.rest().starts_with('<') {
            return self.err("expected `<`");
        }
        self.at += 1;
        let name = self.name()?;
        let mut attrs = Vec::new();
        loop {
            self.skip_space();
            if self.rest().starts_with("/>") {
                self.at += 2;
                return Ok(Node {
                    name,
                    attrs,
                    children: Vec::new(),
                    text: String::new(),
                });
            }
            if self.rest().starts_with('>') {
                self.at += 1;
                break;
            }
            let key = self.name()?;
            if attrs.iter().any(|(k, _)| *k == key) {
                return self.err(&format!("attribute {key} twice"));
            }
            if !self.rest().starts_with('=') {
                return self.err("expected `=`");
            }
            self.at += 1;
            let Some(q) = self
                .rest()
                .chars()
                .next()
                .filter(|c| matches!(c, '"' | '\''))
            else {
                return self.err("expected a quoted value");
            };
            self.at += 1;
            let end = self.rest().find(q).ok_or("unterminated value")?;
            let value = self.unescape(&self.rest()[..end], self.at)?;
            self.at += end + 1;
            attrs.push((key, value));
        }
        let mut node = Node {
            name,
            attrs,
            children: Vec::new(),
            text: String::new(),
        };
        loop {
            let end = self.rest().find('<').ok_or("unclosed element")?;
            let text = self.unescape(&self.rest()[..end], self.at)?;
            node.text.push_str(&text);
            self.at += end;
            if self.rest().starts_with("</") {
                self.at += 2;
                let close = self.name()?;
                if close != node.name {
                    return self.err(&format!("</{close}> closes <{}>", node.name));
                }
                self.skip_space();
                if !self.rest().starts_with('>') {
                    return self.err("expected `>`");
                }
                self.at += 1;
                return Ok(node);
            }
            node.children.push(self.element()?);
        }
    }
}

/// Parses a document: an optional `<?xml ...?>` declaration, then one root element.
pub fn parse(s: &str) -> Result<Node, String> {
    let mut r = Reader { s, at: 0 };
    if r.rest().starts_with("<?xml") {
        r.at = r.rest().find("?>").ok_or("unterminated declaration")? + 2;
    }
    r.skip_space();
    let root = r.element()?;
    r.skip_space();
    if !r.rest().is_empty() {
        return r.err("something after the root element");
    }
    Ok(root)
}
