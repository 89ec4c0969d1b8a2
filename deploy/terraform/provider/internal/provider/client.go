package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client calls Lanner's REST API (base path /api/v1) with a bearer token.
type Client struct {
	baseURL string
	token   string
	tenant  string
	http    *http.Client
}

// ProblemEntry is one problem of an RFC 9457 answer, with its YAML or JSON path.
type ProblemEntry struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	Line    *int   `json:"line,omitempty"`
}

// Problem is an error answer of the API (RFC 9457 problem details).
type Problem struct {
	Status int            `json:"status"`
	Title  string         `json:"title"`
	Detail string         `json:"detail"`
	Errors []ProblemEntry `json:"errors"`
}

func (e ProblemEntry) String() string {
	where := e.Path
	if where == "" {
		where = "(document)"
	}
	if e.Line != nil {
		return fmt.Sprintf("%s: %s (line %d)", where, e.Message, *e.Line)
	}
	return fmt.Sprintf("%s: %s", where, e.Message)
}

func (p *Problem) Error() string {
	text := fmt.Sprintf("%d %s", p.Status, p.Title)
	if p.Detail != "" {
		text += ": " + p.Detail
	}
	for _, entry := range p.Errors {
		text += "\n  " + entry.String()
	}
	return text
}

// IsNotFound tells whether the API answered 404 (the object is gone).
func IsNotFound(err error) bool {
	var problem *Problem
	return errors.As(err, &problem) && problem.Status == http.StatusNotFound
}

func NewClient(baseURL, token, tenant string) *Client {
	return &Client{
		baseURL: strings.TrimRight(baseURL, "/"),
		token:   token,
		tenant:  tenant,
		http:    &http.Client{Timeout: 60 * time.Second},
	}
}

func segments(parts ...string) string {
	escaped := make([]string, len(parts))
	for i, part := range parts {
		escaped[i] = url.PathEscape(part)
	}
	return strings.Join(escaped, "/")
}

// InstancePath is /api/v1/instance/<parts>.
func (c *Client) InstancePath(parts ...string) string {
	return "/api/v1/instance/" + segments(parts...)
}

// TenantPath is /api/v1/<tenant>/<parts>.
func (c *Client) TenantPath(parts ...string) string {
	return "/api/v1/" + url.PathEscape(c.tenant) + "/" + segments(parts...)
}

// JSON sends body as JSON (when not nil) and decodes the answer into out (when not nil).
func (c *Client) JSON(ctx context.Context, method, path string, body any, out any) (int, error) {
	var reader io.Reader
	contentType := ""
	if body != nil {
		encoded, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		reader = bytes.NewReader(encoded)
		contentType = "application/json"
	}
	return c.send(ctx, method, path, nil, reader, contentType, out)
}

// YAML sends a YAML document and decodes the JSON answer into out.
func (c *Client) YAML(ctx context.Context, method, path, source string, out any) (int, error) {
	return c.send(ctx, method, path, nil, strings.NewReader(source), "application/x-yaml", out)
}

// Get reads path with a query and decodes the answer into out.
func (c *Client) Get(ctx context.Context, path string, query url.Values, out any) error {
	_, err := c.send(ctx, http.MethodGet, path, query, nil, "", out)
	return err
}

func (c *Client) send(ctx context.Context, method, path string, query url.Values, body io.Reader, contentType string, out any) (int, error) {
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	request, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return 0, err
	}
	request.Header.Set("Accept", "application/json, application/problem+json")
	if contentType != "" {
		request.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		request.Header.Set("Authorization", "Bearer "+c.token)
	}
	response, err := c.http.Do(request)
	if err != nil {
		return 0, fmt.Errorf("cannot reach the Lanner server at %s: %w", c.baseURL, err)
	}
	defer response.Body.Close()
	data, err := io.ReadAll(response.Body)
	if err != nil {
		return response.StatusCode, err
	}
	if response.StatusCode >= 400 {
		problem := &Problem{Status: response.StatusCode, Title: http.StatusText(response.StatusCode)}
		// A body that is not a problem document (a proxy's page) leaves the status text.
		_ = json.Unmarshal(data, problem)
		problem.Status = response.StatusCode
		return response.StatusCode, problem
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return response.StatusCode, fmt.Errorf("unexpected answer from %s %s: %w", method, path, err)
		}
	}
	return response.StatusCode, nil
}
