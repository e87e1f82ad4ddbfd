package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
)

// Get fetches url with hc and returns the response and its body. A non-2xx
// status gives an *HTTPError.
func Get(ctx context.Context, hc *http.Client, url string, header http.Header) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := hc.Do(req)
	if err != nil {
		// *url.Error repeats the full URL, query included; the transport's
		// error already names the redacted one.
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading body: %w", ShownURL(req), err)
	}
	if err := CheckStatus(req, resp, body); err != nil {
		return resp, body, err
	}
	return resp, body, nil
}

// DecodeJSON decodes body into v, with errors that say what came instead of JSON
// (an HTML error page served with status 200, a truncated document).
func DecodeJSON(url string, body []byte, v any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return fmt.Errorf("%s: empty response, expected JSON", url)
	}
	if trimmed[0] == '<' {
		return fmt.Errorf("%s: expected JSON, got an HTML or XML page: %s", url, Sanitize(trimmed[:min(len(trimmed), 120)]))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: invalid JSON (truncated or corrupt response): %w", url, err)
	}
	return nil
}
