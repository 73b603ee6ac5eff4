use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(required, computed)]
    id: String,
}

// The fallback impl keeps uses of the type from adding errors of their own.
fn schema() -> tfvalue::Type {
    <Server as TfValue>::tf_type()
}

fn main() {}
