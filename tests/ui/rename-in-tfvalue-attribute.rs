use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(rename = "server_name")]
    name: String,
}

fn main() {}
