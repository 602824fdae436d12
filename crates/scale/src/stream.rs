//! Logs of many web servers verified centrally over NATS JetStream.
