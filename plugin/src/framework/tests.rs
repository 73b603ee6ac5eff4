//! Unit tests of the framework: routing and handler errors, without Terraform.
