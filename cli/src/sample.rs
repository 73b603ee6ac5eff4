//! The built-in sample: a planned `aws_instance`-like value, with unknowns and refinements,
//! so that `tfvalue inspect` shows something on a fresh machine.

use crate::render::Mask;

/// What `tfvalue inspect` prints above the sample: that it is one, and how to read it.
pub const HEADER: &str = "\
# A built-in sample: the planned value of an aws_instance-like resource, as a provider gets
# it in PlanResourceChange. Give a FILE (or --state FILE, --plan FILE) to inspect your own.
# (known after apply, ...) is an unknown with what is known of it (its refinements);
# <object({..})> before a value is the type a value carries where the schema says dynamic.
";

/// The type of the sample, as compact type JSON.
pub const TYPE_JSON: &str = r#"["object",{
    "ami":"string","arn":"string","id":"string","instance_type":"string",
    "cpu_core_count":"number","monitoring":"bool","user_data":"string",
    "tags":["map","string"],"vpc_security_group_ids":["set","string"],
    "private_ips":["list","string"],
    "root_block_device":["list",["object",{"encrypted":"bool","iops":"number","volume_size":"number","volume_type":"string"}]],
    "metadata":"dynamic"}]"#;

/// The sample plan value in the tagged notation; `tfvalue inspect` encodes it to
/// MessagePack and decodes it again before showing it, as it would a real payload.
pub const VALUE_JSON: &str = r##"{"object":{
    "ami":{"string":"ami-0c55b159cbfafe1f0"},
    "arn":{"unknown":{"nullness":false,"prefix":"arn:aws:ec2:eu-west-1:"}},
    "id":{"unknown":{"nullness":false}},
    "instance_type":{"string":"t3.micro"},
    "cpu_core_count":{"unknown":{"lower":["1",true],"upper":["64",true]}},
    "monitoring":{"bool":true},
    "user_data":{"string":"#!/bin/sh\necho hello > /tmp/hello"},
    "tags":{"map":{"Name":{"string":"web-1"},"env":{"string":"prod"}}},
    "vpc_security_group_ids":{"set":[{"string":"sg-0a1b2c"},{"unknown":{"prefix":"sg-"}}]},
    "private_ips":{"unknown":{"nullness":false,"len_lower":1,"len_upper":4}},
    "root_block_device":{"list":[{"object":{
        "encrypted":{"bool":true},"iops":{"unknown":{}},
        "volume_size":{"number":"40"},"volume_type":{"string":"gp3"}}}]},
    "metadata":{"dynamic":{"type":["object",{"owner":"string","ttl_hours":"number"}],
        "value":{"object":{"owner":{"string":"platform"},"ttl_hours":{"number":"0.5"}}}}}
}}"##;

/// `user_data` is sensitive in the sample's schema.
pub fn mask() -> Mask {
    let mut m = Mask::default();
    m.attrs.insert(
        "user_data".into(),
        Mask {
            sensitive: true,
            ..Mask::default()
        },
    );
    m
}
