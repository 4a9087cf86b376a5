//! OTLP/HTTP export: one JSON `ExportTraceServiceRequest` POSTed to a collector
//! (`Content-Type: application/json`), with a bounded retry on what the OTLP
//! specification calls retryable (no connection, 429, 502, 503, 504), and an error that
//! names the endpoint and the last answer otherwise.

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

/// Sends `body` to `endpoint`; `Err` says why it was not accepted.
pub(crate) fn post(endpoint: &str, body: &str) -> Result<(), String> {
    let url = traces_url(endpoint);
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
            .header("Content-Type", "application/json")
            .send(body.as_bytes())
        {
            Ok(response) => {
                let status = response.status().as_u16();
                if (200..300).contains(&status) {
                    return Ok(());
                }
                last = format!("the collector answered HTTP {status}");
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
