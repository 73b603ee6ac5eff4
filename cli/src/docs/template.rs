//! The templates of `tfvalue docs generate`: the subset of Go's `text/template` that
//! documentation templates written for tfplugindocs use.
//!
//! - `{{ .Field }}` and `{{ . }}` (inside `range`), string literals `"..."`;
//! - pipelines: `{{ .Description | trimspace }}`, the value piped in as the last argument;
//! - functions `tffile`, `codefile`, `plainmarkdown`, `trimspace`, `prefixlines`, `lower`,
//!   `upper`, `title`, `split`, `printf` (`%s`, `%v`, `%q`, `%%`);
//! - `{{ if X }} ... {{ else if Y }} ... {{ else }} ... {{ end }}`, `{{ range X }} ... {{ end }}`;
//! - `{{-` and `-}}` trim the white space before and after, `{{/* comments */}}`.
//!
//! Anything else is an error that names the template and the line.

use std::collections::BTreeMap;

/// A value a template sees.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Str(String),
    Bool(bool),
    List(Vec<String>),
}

impl Val {
    fn truthy(&self) -> bool {
        match self {
            Val::Str(s) => !s.is_empty(),
            Val::Bool(b) => *b,
            Val::List(l) => !l.is_empty(),
        }
    }

    fn text(&self) -> String {
        match self {
            Val::Str(s) => s.clone(),
            Val::Bool(b) => b.to_string(),
            Val::List(l) => format!("[{}]", l.join(" ")),
        }
    }
}

/// The fields of one page, and how `tffile` and `codefile` read files.
pub struct Data<'a> {
    pub fields: BTreeMap<&'static str, Val>,
    pub read_file: &'a dyn Fn(&str) -> Result<String, String>,
}

#[derive(Debug)]
enum Node {
    Text(String),
    Action(Pipeline, usize),
    If(Vec<(Pipeline, Vec<Node>)>, Vec<Node>, usize),
    Range(Pipeline, Vec<Node>, usize),
}

type Pipeline = Vec<Vec<Arg>>;

#[derive(Debug, Clone)]
enum Arg {
    Field(String),
    Dot,
    Str(String),
    Ident(String),
}

/// A parsed template.
#[derive(Debug)]
pub struct Template {
    name: String,
    nodes: Vec<Node>,
}

enum Token {
    Text(String),
    /// An action's words, and its line.
    Action(String, usize),
}

impl Template {
    /// Parses `text`; `name` is for messages (the file's path).
    pub fn parse(name: &str, text: &str) -> Result<Template, String> {
        let tokens = tokenize(name, text)?;
        let mut it = tokens.into_iter().peekable();
        let (nodes, end) = parse_nodes(name, &mut it, 0)?;
        if let Some((word, line)) = end {
            return Err(format!("{name}:{line}: unexpected {{{{{word}}}}}"));
        }
        Ok(Template {
            name: name.to_owned(),
            nodes,
        })
    }

    /// Renders the template with `data`.
    pub fn render(&self, data: &Data<'_>) -> Result<String, String> {
        let mut out = String::new();
        render_nodes(&self.name, &self.nodes, data, None, &mut out)?;
        Ok(out)
    }
}

fn tokenize(name: &str, text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut rest = text;
    let mut line = 1;
    let mut trim_next = false;
    while !rest.is_empty() {
        let Some(open) = rest.find("{{") else {
            push_text(&mut tokens, rest, trim_next, false);
            break;
        };
        let before = &rest[..open];
        let after = &rest[open + 2..];
        // Go's trim markers: `{{- ` and ` -}}`, the space any of its four white space
        // characters.
        let trim_before = after
            .strip_prefix('-')
            .is_some_and(|a| a.starts_with(GO_SPACE));
        push_text(&mut tokens, before, trim_next, trim_before);
        line += before.matches('\n').count();
        let inner_start = if trim_before { &after[1..] } else { after };
        let Some(close) = inner_start.find("}}") else {
            return Err(format!("{name}:{line}: an action without its closing }}}}"));
        };
        let mut inner = &inner_start[..close];
        trim_next = inner
            .strip_suffix('-')
            .is_some_and(|i| i.ends_with(GO_SPACE));
        if trim_next {
            inner = &inner[..inner.len() - 1];
        }
        let words = inner.trim();
        if !(words.starts_with("/*") && words.ends_with("*/")) {
            tokens.push(Token::Action(words.to_owned(), line));
        }
        line += inner_start[..close].matches('\n').count();
        rest = &inner_start[close + 2..];
    }
    Ok(tokens)
}

/// The white space of Go's templates (trim markers trim only these).
const GO_SPACE: [char; 4] = [' ', '\t', '\r', '\n'];

fn push_text(tokens: &mut Vec<Token>, text: &str, trim_start: bool, trim_end: bool) {
    let mut t = text;
    if trim_start {
        t = t.trim_start_matches(GO_SPACE);
    }
    if trim_end {
        t = t.trim_end_matches(GO_SPACE);
    }
    if !t.is_empty() {
        tokens.push(Token::Text(t.to_owned()));
    }
}

type Tokens = std::iter::Peekable<std::vec::IntoIter<Token>>;

/// Nodes, and the `else ..`/`end` that ended them with its line.
type Parsed = (Vec<Node>, Option<(String, usize)>);

/// How deep `if` and `range` may nest (the parser and the renderer recurse on them).
const MAX_NESTING: usize = 100;

/// Parses nodes up to an `else`/`end` (returned with its line) or the end, inside
/// `depth` enclosing `if`s and `range`s.
fn parse_nodes(name: &str, it: &mut Tokens, depth: usize) -> Result<Parsed, String> {
    let mut nodes = Vec::new();
    while let Some(tok) = it.next() {
        match tok {
            Token::Text(t) => nodes.push(Node::Text(t)),
            Token::Action(words, line) => {
                let first = words.split_whitespace().next().unwrap_or("");
                match first {
                    "end" | "else" => return Ok((nodes, Some((words, line)))),
                    "if" | "range" if depth >= MAX_NESTING => {
                        return Err(format!(
                            "{name}:{line}: {{{{if}}}} and {{{{range}}}} nest deeper than {MAX_NESTING}"
                        ))
                    }
                    "if" => nodes.push(parse_if(name, &words[2..], line, it, depth + 1)?),
                    "range" => {
                        let p = parse_pipeline(name, &words[5..], line)?;
                        let (body, end) = parse_nodes(name, it, depth + 1)?;
                        match end {
                            Some((w, _)) if w == "end" => nodes.push(Node::Range(p, body, line)),
                            _ => {
                                return Err(format!(
                                    "{name}:{line}: {{{{range}}}} without its {{{{end}}}}"
                                ))
                            }
                        }
                    }
                    "define" | "template" | "block" | "with" | "define-" => {
                        return Err(format!(
                            "{name}:{line}: {{{{{first}}}}} is not supported by tfvalue's templates"
                        ))
                    }
                    _ => nodes.push(Node::Action(parse_pipeline(name, &words, line)?, line)),
                }
            }
        }
    }
    Ok((nodes, None))
}

fn parse_if(
    name: &str,
    cond: &str,
    line: usize,
    it: &mut Tokens,
    depth: usize,
) -> Result<Node, String> {
    let mut arms = vec![(parse_pipeline(name, cond, line)?, Vec::new())];
    loop {
        let (body, end) = parse_nodes(name, it, depth)?;
        if let Some(arm) = arms.last_mut() {
            arm.1 = body;
        }
        match end {
            Some((w, _)) if w == "end" => return Ok(Node::If(arms, Vec::new(), line)),
            Some((w, l)) if w.starts_with("else") => {
                let rest = w["else".len()..].trim();
                if let Some(cond) = rest.strip_prefix("if ") {
                    arms.push((parse_pipeline(name, cond, l)?, Vec::new()));
                } else if rest.is_empty() {
                    let (body, end) = parse_nodes(name, it, depth)?;
                    return match end {
                        Some((w, _)) if w == "end" => Ok(Node::If(arms, body, line)),
                        _ => Err(format!("{name}:{line}: {{{{if}}}} without its {{{{end}}}}")),
                    };
                } else {
                    return Err(format!("{name}:{l}: unexpected {{{{{w}}}}}"));
                }
            }
            _ => return Err(format!("{name}:{line}: {{{{if}}}} without its {{{{end}}}}")),
        }
    }
}

fn parse_pipeline(name: &str, text: &str, line: usize) -> Result<Pipeline, String> {
    let mut commands = Vec::new();
    let mut current = Vec::new();
    let mut chars = text.trim().chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '|' {
            chars.next();
            if current.is_empty() {
                return Err(format!("{name}:{line}: an empty command in a pipeline"));
            }
            commands.push(std::mem::take(&mut current));
        } else if c == '"' || c == '`' {
            chars.next();
            let mut s = String::new();
            let mut closed = false;
            while let Some(ch) = chars.next() {
                if ch == c {
                    closed = true;
                    break;
                }
                if ch == '\\' && c == '"' {
                    match chars.next() {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some(other) => s.push(other),
                        None => break,
                    }
                } else {
                    s.push(ch);
                }
            }
            if !closed {
                return Err(format!("{name}:{line}: a string without its closing quote"));
            }
            current.push(Arg::Str(s));
        } else {
            let mut word = String::new();
            while let Some(&ch) = chars.peek() {
                if ch.is_whitespace() || ch == '|' {
                    break;
                }
                word.push(ch);
                chars.next();
            }
            current.push(if word == "." {
                Arg::Dot
            } else if let Some(field) = word.strip_prefix('.') {
                Arg::Field(field.to_owned())
            } else if word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                Arg::Ident(word)
            } else {
                return Err(format!("{name}:{line}: cannot read `{word}`"));
            });
        }
    }
    if current.is_empty() {
        return Err(format!("{name}:{line}: an empty action"));
    }
    commands.push(current);
    for (i, command) in commands.iter().enumerate() {
        if let Some(Arg::Ident(f)) = command.first() {
            // A command after a `|` gets the value before it as its last argument.
            let given = command.len() - 1 + usize::from(i > 0);
            check_call(f, given).map_err(|e| format!("{name}:{line}: {e}"))?;
        }
    }
    Ok(commands)
}

/// The functions of the templates and how many arguments each takes (`None`: any
/// number, at least one).
const FUNCTIONS: [(&str, Option<usize>); 10] = [
    ("tffile", Some(1)),
    ("codefile", Some(2)),
    ("plainmarkdown", Some(1)),
    ("trimspace", Some(1)),
    ("prefixlines", Some(2)),
    ("lower", Some(1)),
    ("upper", Some(1)),
    ("title", Some(1)),
    ("split", Some(2)),
    ("printf", None),
];

/// Checks, when a template is read, that a function exists and gets its arguments, so a
/// mistake is found even in a branch the data never takes.
fn check_call(f: &str, given: usize) -> Result<(), String> {
    let Some((_, arity)) = FUNCTIONS.iter().find(|(n, _)| *n == f) else {
        let names: Vec<&str> = FUNCTIONS.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "no function `{f}` (tfvalue's templates have {})",
            names.join(", ")
        ));
    };
    match arity {
        Some(n) if *n != given => Err(format!("{f} takes {n} argument(s), not {given}")),
        None if given == 0 => Err(format!("{f} takes a format and its arguments")),
        _ => Ok(()),
    }
}

fn render_nodes(
    name: &str,
    nodes: &[Node],
    data: &Data<'_>,
    dot: Option<&str>,
    out: &mut String,
) -> Result<(), String> {
    for node in nodes {
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Action(p, line) => {
                out.push_str(&eval(name, p, data, dot, *line)?.text());
            }
            Node::If(arms, otherwise, line) => {
                let mut done = false;
                for (cond, body) in arms {
                    if eval(name, cond, data, dot, *line)?.truthy() {
                        render_nodes(name, body, data, dot, out)?;
                        done = true;
                        break;
                    }
                }
                if !done {
                    render_nodes(name, otherwise, data, dot, out)?;
                }
            }
            Node::Range(p, body, line) => match eval(name, p, data, dot, *line)? {
                Val::List(items) => {
                    for item in &items {
                        render_nodes(name, body, data, Some(item), out)?;
                    }
                }
                other => {
                    return Err(format!(
                        "{name}:{line}: range over {}, which is not a list",
                        other.text()
                    ))
                }
            },
        }
    }
    Ok(())
}

fn eval(
    name: &str,
    pipeline: &Pipeline,
    data: &Data<'_>,
    dot: Option<&str>,
    line: usize,
) -> Result<Val, String> {
    let at = |m: String| format!("{name}:{line}: {m}");
    let mut piped: Option<Val> = None;
    for command in pipeline {
        let operand = |a: &Arg| -> Result<Val, String> {
            match a {
                Arg::Str(s) => Ok(Val::Str(s.clone())),
                Arg::Dot => dot
                    .map(|d| Val::Str(d.to_owned()))
                    .ok_or_else(|| at("`.` is only a value inside {{range}}".into())),
                Arg::Field(f) => data.fields.get(f.as_str()).cloned().ok_or_else(|| {
                    let known: Vec<&str> = data.fields.keys().copied().collect();
                    at(format!(
                        "no field .{f} (the fields are .{})",
                        known.join(", .")
                    ))
                }),
                Arg::Ident(i) => Err(at(format!("`{i}` is a function, not a value"))),
            }
        };
        let (head, rest) = command.split_first().ok_or_else(|| at("empty".into()))?;
        let value = match head {
            Arg::Ident(f) => {
                let mut args = rest.iter().map(operand).collect::<Result<Vec<_>, _>>()?;
                if let Some(p) = piped.take() {
                    args.push(p);
                }
                call(f, args, data).map_err(at)?
            }
            other => {
                if !rest.is_empty() || piped.is_some() {
                    return Err(at("only a function takes arguments".into()));
                }
                operand(other)?
            }
        };
        piped = Some(value);
    }
    piped.ok_or_else(|| at("an empty action".into()))
}

fn call(f: &str, args: Vec<Val>, data: &Data<'_>) -> Result<Val, String> {
    let strings = |n: usize| -> Result<Vec<String>, String> {
        if args.len() != n {
            return Err(format!("{f} takes {n} argument(s), not {}", args.len()));
        }
        Ok(args.iter().map(Val::text).collect())
    };
    Ok(Val::Str(match f {
        "trimspace" => strings(1)?[0].trim().to_owned(),
        "lower" => strings(1)?[0].to_lowercase(),
        "upper" => strings(1)?[0].to_uppercase(),
        "title" => title(&strings(1)?[0]),
        "plainmarkdown" => plain_markdown(&strings(1)?[0]),
        "prefixlines" => {
            let a = strings(2)?;
            prefix_lines(&a[0], &a[1])
        }
        "split" => {
            let a = strings(2)?;
            return Ok(Val::List(
                a[0].split(a[1].as_str()).map(str::to_owned).collect(),
            ));
        }
        "tffile" => code_block("terraform", &(data.read_file)(&strings(1)?[0])?),
        "codefile" => {
            let a = strings(2)?;
            code_block(&a[0], &(data.read_file)(&a[1])?)
        }
        "printf" => printf(&args)?,
        other => {
            // (`check_call` found this when the template was read.)
            return Err(format!("no function `{other}`"));
        }
    }))
}

/// A fenced code block of a file's text (trimmed), as tfplugindocs writes one.
pub fn code_block(lang: &str, text: &str) -> String {
    let text = text.trim();
    // A fence longer than any run of backticks in the text.
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{text}\n{fence}")
}

fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut start = true;
    for c in s.chars() {
        if start && c.is_alphabetic() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        start = !c.is_alphanumeric();
    }
    out
}

/// Every line of `text` with `prefix` before it.
pub fn prefix_lines(prefix: &str, text: &str) -> String {
    text.split('\n')
        .map(|l| format!("{prefix}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn printf(args: &[Val]) -> Result<String, String> {
    let Some((format, rest)) = args.split_first() else {
        return Err("printf takes a format".into());
    };
    let format = format.text();
    let mut out = String::new();
    let mut rest = rest.iter();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some(v @ ('s' | 'v' | 'q')) => {
                let arg = rest
                    .next()
                    .ok_or_else(|| format!("printf {format:?}: too few arguments"))?;
                if v == 'q' {
                    out.push_str(&format!("{:?}", arg.text()));
                } else {
                    out.push_str(&arg.text());
                }
            }
            other => {
                return Err(format!(
                    "printf {format:?}: the verb %{} is not supported (only %s, %v, %q)",
                    other.map(String::from).unwrap_or_default()
                ))
            }
        }
    }
    Ok(out)
}

/// Markdown as plain text, for front matter: emphasis, code spans, links and images
/// reduced to their text, HTML tags and heading marks removed. Underscores stay (they
/// are in names far more often than they mark emphasis).
pub fn plain_markdown(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    for (i, line) in md.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.trim_start_matches('#').trim_start_matches(' ');
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '*' | '`' => {}
                '!' if chars.peek() == Some(&'[') => {}
                '[' => {
                    // `[text](url)` -> text
                    let mut text = String::new();
                    let mut closed = false;
                    for ch in chars.by_ref() {
                        if ch == ']' {
                            closed = true;
                            break;
                        }
                        text.push(ch);
                    }
                    if closed && chars.peek() == Some(&'(') {
                        for ch in chars.by_ref() {
                            if ch == ')' {
                                break;
                            }
                        }
                        out.push_str(&text);
                    } else {
                        out.push('[');
                        out.push_str(&text);
                        if closed {
                            out.push(']');
                        }
                    }
                }
                '<' if chars
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == '/') =>
                {
                    // An HTML tag: up to its `>`, if one comes before another `<`. (Each
                    // character is looked at at most twice: no quadratic scan.)
                    let mut ahead = chars.clone();
                    let mut len = 0;
                    let tag = loop {
                        match ahead.next() {
                            Some('>') => break true,
                            Some('<') | None => break false,
                            Some(_) => len += 1,
                        }
                    };
                    if tag {
                        chars.nth(len);
                    } else {
                        out.push('<');
                    }
                }
                '\\' => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                other => out.push(other),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str, fields: &[(&'static str, Val)]) -> Result<String, String> {
        let read = |p: &str| -> Result<String, String> {
            if p == "ex/a.tf" {
                Ok("resource \"x\" \"y\" {}\n".into())
            } else {
                Err(format!("no file {p}"))
            }
        };
        let data = Data {
            fields: fields.iter().cloned().collect(),
            read_file: &read,
        };
        Template::parse("t.tmpl", text)?.render(&data)
    }

    #[test]
    fn fields_pipelines_and_functions() {
        let f = [
            ("Name", Val::Str("kv_entry".into())),
            ("Description", Val::Str("  An entry.\nTwo lines.  ".into())),
        ];
        assert_eq!(
            render("# {{ .Name }} ({{ .Name | upper }})", &f).unwrap(),
            "# kv_entry (KV_ENTRY)"
        );
        assert_eq!(
            render(
                "description: |-\n{{ .Description | trimspace | prefixlines \"  \" }}",
                &f
            )
            .unwrap(),
            "description: |-\n  An entry.\n  Two lines."
        );
        assert_eq!(
            render("{{ printf \"%s is %q %%\" .Name \"x\" }}", &f).unwrap(),
            "kv_entry is \"x\" %"
        );
        assert_eq!(
            render("{{ title \"kv entry-one\" }}", &f).unwrap(),
            "Kv Entry-One"
        );
    }

    #[test]
    fn conditions_ranges_and_trimming() {
        let f = [
            ("HasExample", Val::Bool(true)),
            ("HasImport", Val::Bool(false)),
            ("ExampleFiles", Val::List(vec!["ex/a.tf".into()])),
        ];
        let t = "A\n\n{{ if .HasImport -}}\nimport\n{{- else if .HasExample }}\
                 {{ range .ExampleFiles }}{{ tffile . }}{{ end }}{{ else }}none{{ end }}\n";
        assert_eq!(
            render(t, &f).unwrap(),
            "A\n\n```terraform\nresource \"x\" \"y\" {}\n```\n"
        );
        assert_eq!(
            render("a  {{- /* gone */ -}}  b", &f).unwrap(),
            "ab",
            "a comment with trim markers on both sides"
        );
        assert_eq!(
            render("a \t{{-\t.Name\r-}}\t b", &[("Name", Val::Str("x".into()))]).unwrap(),
            "axb",
            "a tab or a carriage return makes a trim marker too"
        );
        assert_eq!(
            render("a\u{a0}{{- \"x\" }}", &f).unwrap(),
            "a\u{a0}x",
            "only Go's white space is trimmed"
        );
    }

    #[test]
    fn nesting_is_bounded() {
        let f = [("Name", Val::Bool(true))];
        let nested = |n: usize| "{{ if .Name }}".repeat(n) + "x" + &"{{ end }}".repeat(n);
        assert_eq!(render(&nested(MAX_NESTING), &f).unwrap(), "x");
        let e = render(&nested(MAX_NESTING + 1), &f).unwrap_err();
        assert!(
            e.starts_with("t.tmpl:1: {{if}} and {{range}} nest deeper than 100"),
            "{e}"
        );
        // Far deeper than any stack: an error, not a crash.
        let e = render(&nested(200_000), &f).unwrap_err();
        assert!(e.contains("nest deeper"), "{e}");
        let e = render(&"{{ range .Name }}".repeat(200_000), &f).unwrap_err();
        assert!(e.contains("nest deeper"), "{e}");
    }

    #[test]
    fn mistakes_name_the_template_and_line() {
        let f = [("Name", Val::Str("x".into()))];
        let e = render("line\n{{ .Nmae }}", &f).unwrap_err();
        assert!(e.starts_with("t.tmpl:2: no field .Nmae"), "{e}");
        let e = render("{{ if .Name }}x", &f).unwrap_err();
        assert!(e.contains("without its {{end}}"), "{e}");
        let e = render("{{ frobnicate .Name }}", &f).unwrap_err();
        assert!(e.contains("no function `frobnicate`"), "{e}");
        let e = render("{{ tffile \"nope.tf\" }}", &f).unwrap_err();
        assert!(e.contains("no file nope.tf"), "{e}");
        // Found when the template is read, even in a branch the data never takes.
        let e = render(
            "{{ if .Name }}x{{ else }}{{ upper \"a\" \"b\" }}{{ end }}",
            &f,
        )
        .unwrap_err();
        assert_eq!(e, "t.tmpl:1: upper takes 1 argument(s), not 2");
        let e = render("{{ if .Name }}x{{ else }}{{ .Name | nope }}{{ end }}", &f).unwrap_err();
        assert!(e.starts_with("t.tmpl:1: no function `nope`"), "{e}");
        let e = render("{{ end }}", &f).unwrap_err();
        assert!(e.contains("unexpected {{end}}"), "{e}");
    }

    #[test]
    fn a_code_fence_is_longer_than_the_backticks_inside() {
        assert_eq!(
            code_block("shell", "a ```b``` c"),
            "````shell\na ```b``` c\n````"
        );
    }

    #[test]
    fn plain_markdown_keeps_the_text() {
        assert_eq!(
            plain_markdown("Use **`path`**, see [the docs](https://x.y/z) and <b>this</b>."),
            "Use path, see the docs and this."
        );
        assert_eq!(
            plain_markdown("snake_case_name stays"),
            "snake_case_name stays"
        );
        assert_eq!(plain_markdown("1 < 2 and _em_"), "1 < 2 and _em_");
        assert_eq!(
            plain_markdown("<b>é</b>-x <a<b>"),
            "é-x <a",
            "tags counted in characters"
        );
    }
}
