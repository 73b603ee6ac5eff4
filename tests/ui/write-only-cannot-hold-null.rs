use tfvalue::TfValue;

#[derive(TfValue)]
struct Secret {
    #[tfvalue(required, write_only)]
    value: String,
}

fn main() {}
