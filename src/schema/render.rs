//! A short, HCL-like rendering of values for messages.

use std::fmt::Write as _;

use crate::value::Value;

/// Values longer than this are cut with `...`.
const MAX_LEN: usize = 120;

/// `"a"`, `5`, `true`, `null`, `["a", "b"]`, `{ port = 80 }`, `(unknown)`.
pub(crate) fn show(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v, 0);
    if out.len() > MAX_LEN {
        let mut cut = MAX_LEN;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("...");
    }
    out
}

fn write_value(out: &mut String, v: &Value, depth: usize) {
    if out.len() > MAX_LEN || depth > 16 {
        out.push_str("...");
        return;
    }
    match v {
        Value::Null => out.push_str("null"),
        Value::Unknown(r) if r.is_empty() => out.push_str("(unknown)"),
        Value::Unknown(r) => {
            let _ = write!(out, "(unknown: {r})");
        }
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => {
            let _ = write!(out, "{s:?}");
        }
        Value::List(vs) | Value::Set(vs) | Value::Tuple(vs) => {
            out.push('[');
            for (i, e) in vs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, e, depth + 1);
            }
            out.push(']');
        }
        Value::Map(m) | Value::Object(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push_str("{ ");
            for (i, (k, e)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{k} = ");
                write_value(out, e, depth + 1);
            }
            out.push_str(" }");
        }
        Value::Dynamic(d) => write_value(out, d.value(), depth),
    }
}
