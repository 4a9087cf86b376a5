//! OTLP/HTTP export: one `ExportTraceServiceRequest` POSTed to a collector, as JSON
//! (`Content-Type: application/json`, the default) or as protobuf
//! (`application/x-protobuf`, for collectors that take only that, such as Arize
//! Phoenix: the JSON is read into the official `opentelemetry-proto` types and encoded
//! by them), with a bounded retry on what the OTLP specification calls retryable (no
//! connection, 429, 502, 503, 504), and an error that names the endpoint and the last
//! answer otherwise.

use std::time::Duration;

/// Attempts per request (the first and two retries).
const ATTEMPTS: u32 = 3;
/// The wait before the first retry; it doubles after each.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The time one attempt may take, connection included.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The traces URL: `endpoint` as given, or with `/v1/traces` when it has no path.
pub(crate) fn traces_url(endpoint: &str) -> String {
    let rest = endpoint
        .split_once("://")
        .map_or(endpoint, |(_, rest)| rest);
    if rest.trim_end_matches('/').contains('/') {
        endpoint.to_owned()
    } else {
        format!("{}/v1/traces", endpoint.trim_end_matches('/'))
    }
}

/// The OTLP/HTTP encoding (`--otlp-protocol`, named as `OTEL_EXPORTER_OTLP_PROTOCOL`
/// names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    /// `application/json`.
    #[value(name = "http/json")]
    Json,
    /// `application/x-protobuf`.
    #[value(name = "http/protobuf")]
    Protobuf,
}

/// The body and content type of an OTLP/JSON export in `protocol`.
fn encode(json: &str, protocol: Protocol) -> Result<(Vec<u8>, &'static str), String> {
    match protocol {
        Protocol::Json => Ok((json.as_bytes().to_vec(), "application/json")),
        Protocol::Protobuf => {
            use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
            let request: ExportTraceServiceRequest =
                serde_json::from_str(json).map_err(|e| format!("the export is not OTLP: {e}"))?;
            Ok((
                prost::Message::encode_to_vec(&request),
                "application/x-protobuf",
            ))
        }
    }
}

/// Sends `body` (OTLP/JSON) to `endpoint` in `protocol`; `Err` says why it was not
/// accepted.
pub fn post(endpoint: &str, body: &str, protocol: Protocol) -> Result<(), String> {
    let url = traces_url(endpoint);
    let (body, content_type) = encode(body, protocol)?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into();
    let mut backoff = FIRST_BACKOFF;
    let mut last = String::new();
    for attempt in 1..=ATTEMPTS {
        match agent
            .post(&url)
            .header("Content-Type", content_type)
            .send(&body[..])
        {
            Ok(response) => {
                let status = response.status().as_u16();
                if (200..300).contains(&status) {
                    return Ok(());
                }
                last = format!("the collector answered HTTP {status}");
                if status == 415 && protocol == Protocol::Json {
                    last.push_str(
                        " (it may take only protobuf: try `--otlp-protocol http/protobuf`)",
                    );
                }
                if !matches!(status, 429 | 502 | 503 | 504) {
                    break;
                }
            }
            Err(e) => last = e.to_string(),
        }
        if attempt < ATTEMPTS {
            std::thread::sleep(backoff);
            backoff *= 2;
        }
    }
    Err(format!(
        "OTLP endpoint {url}: {last} (no spans were accepted)"
    ))
}

#[cfg(test)]
mod tests {
    use super::traces_url;

    #[test]
    fn a_url_without_a_path_gets_the_traces_path() {
        assert_eq!(
            traces_url("http://127.0.0.1:6006"),
            "http://127.0.0.1:6006/v1/traces"
        );
        assert_eq!(
            traces_url("http://127.0.0.1:6006/"),
            "http://127.0.0.1:6006/v1/traces"
        );
        assert_eq!(
            traces_url("http://h:4318/v1/traces"),
            "http://h:4318/v1/traces"
        );
        assert_eq!(traces_url("https://h/api/otlp"), "https://h/api/otlp");
    }
}
