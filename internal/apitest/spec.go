package apitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/scribehq/scribe-go/api"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/internal/wire"
)

// spec is the parsed contract with what validation needs, shared by every
// Validator of the process.
type spec struct {
	doc     *openapi3.T
	router  routers.Router
	roots   map[string]bool // first segments of the contract's paths
	options *openapi3filter.Options
	// Synthetic operations for requests that match no operation: an unknown
	// path answers 404, a known path with another method 405.
	unknownPath, unknownMethod *openapi3.Operation
}

var loadSpec = sync.OnceValues(func() (*spec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI())
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, err
	}
	// Match paths alone: the base URL of a test server is not known here.
	doc.Servers = nil
	forbidUndeclaredMembers(doc)
	doc.SetStringFormatValidators(map[string]openapi3.StringFormatValidator{
		"uuid":  openapi3.NewRegexpFormatValidator(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`),
		"email": openapi3.NewCallbackValidator(validateEmail),
		"uri":   openapi3.NewCallbackValidator(validateURI),
	})
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	s := &spec{
		doc:    doc,
		router: router,
		roots:  map[string]bool{},
		options: &openapi3filter.Options{
			IncludeResponseStatus:   true,
			MultiError:              true,
			SkipSettingDefaults:     true,
			AuthenticationFunc:      requireBearer,
			SchemaValidationOptions: doc.GetSchemaValidationOptions(),
		},
	}
	s.options.WithCustomSchemaErrorFunc(schemaErrorMessage)
	for path := range doc.Paths.Map() {
		seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		s.roots[seg] = true
	}
	responses := doc.Components.Responses
	// What answers a request that names no operation: its own status, and
	// what every operation answers before routing or around it (docs/errors.md,
	// "Order of checks": the head limits, the rate limit, the gateway).
	common := func(status int, response *openapi3.ResponseRef) *openapi3.Operation {
		return &openapi3.Operation{
			OperationID: "(no operation)",
			Responses: openapi3.NewResponses(
				openapi3.WithStatus(status, response),
				openapi3.WithStatus(http.StatusRequestURITooLong, responses["URITooLong"]),
				openapi3.WithStatus(http.StatusRequestHeaderFieldsTooLarge, responses["HeaderFieldsTooLarge"]),
				openapi3.WithStatus(http.StatusTooManyRequests, responses["TooManyRequests"]),
				openapi3.WithStatus(http.StatusInternalServerError, responses["InternalError"]),
				openapi3.WithStatus(http.StatusBadGateway, responses["BadGateway"]),
				openapi3.WithStatus(http.StatusServiceUnavailable, responses["ServiceUnavailable"]),
				openapi3.WithStatus(http.StatusGatewayTimeout, responses["GatewayTimeout"]),
			),
		}
	}
	s.unknownPath = common(http.StatusNotFound, responses["NotFound"])
	s.unknownMethod = common(http.StatusMethodNotAllowed, methodNotAllowed(doc))
	return s, nil
})

// methodNotAllowed is the contract's answer to a method a known path does not
// have. No operation can declare it (it belongs to the methods a path lacks)
// and a component nothing refers to is what linters reject and generators
// drop, so the document states it in its description and the harness builds
// it here: a Problem with status 405 and code method_not_allowed, with the
// Request-Id and Allow headers.
func methodNotAllowed(doc *openapi3.T) *openapi3.ResponseRef {
	status := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeInteger}, Enum: []any{float64(http.StatusMethodNotAllowed)}}
	code := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Enum: []any{"method_not_allowed"}}
	narrow := openapi3.NewObjectSchema().WithProperty("status", status).WithProperty("code", code)
	schema := &openapi3.Schema{AllOf: openapi3.SchemaRefs{
		openapi3.NewSchemaRef("#/components/schemas/Problem", doc.Components.Schemas["Problem"].Value),
		narrow.NewRef(),
	}}
	allow := &openapi3.Header{Parameter: openapi3.Parameter{Required: true, Schema: openapi3.NewStringSchema().WithMinLength(1).NewRef()}}
	r := openapi3.NewResponse().
		WithDescription("The path exists but does not support the method (method_not_allowed).").
		WithContent(openapi3.Content{wire.ProblemContentType: openapi3.NewMediaType().WithSchema(schema)})
	r.Headers = openapi3.Headers{"Request-Id": doc.Components.Headers["Request-Id"], "Allow": {Value: allow}}
	return &openapi3.ResponseRef{Value: r}
}

// schemaErrorMessage states a schema mismatch in one line: where, and what is
// wrong, without kin-openapi's dump of the schema and the value.
func schemaErrorMessage(err *openapi3.SchemaError) string {
	reason := err.Reason
	switch {
	case err.Origin != nil:
		reason = err.Origin.Error()
	case reason == "":
		reason = fmt.Sprintf("does not match the schema's %q", err.SchemaField)
	}
	if ptr := err.JSONPointer(); len(ptr) > 0 {
		return fmt.Sprintf("at %q: %s", "/"+strings.Join(ptr, "/"), reason)
	}
	return reason
}

func validateEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return fmt.Errorf("%q is not a bare e-mail address", s)
	}
	return nil
}

func validateURI(s string) error {
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URI", s)
	}
	return nil
}

// forbidUndeclaredMembers makes every named object schema, and the inline
// objects within it, refuse members it does not declare, so the harness
// catches a server that sends fields the contract does not name. Schemas that
// say otherwise (metadata's additionalProperties: true) keep their rule;
// allOf branches are left alone, as each sees only its own properties.
func forbidUndeclaredMembers(doc *openapi3.T) {
	var tighten func(s *openapi3.Schema)
	tighten = func(s *openapi3.Schema) {
		if s == nil {
			return
		}
		if len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			no := false
			s.AdditionalProperties.Has = &no
		}
		for _, p := range s.Properties {
			if p.Ref == "" {
				tighten(p.Value)
			}
		}
		if s.Items != nil && s.Items.Ref == "" {
			tighten(s.Items.Value)
		}
	}
	for _, ref := range doc.Components.Schemas {
		tighten(ref.Value)
	}
	// The webhooks' envelopes are written inline (see api/openapi.yaml).
	for _, item := range doc.Webhooks {
		if item.Post != nil && item.Post.RequestBody != nil && item.Post.RequestBody.Value != nil {
			for _, mt := range item.Post.RequestBody.Value.Content {
				if mt.Schema != nil && mt.Schema.Ref == "" {
					tighten(mt.Schema.Value)
				}
			}
		}
	}
}

// requireBearer accepts any bearer token: the service checks tokens, the
// harness checks that an operation that needs one got one, in Bearer form.
func requireBearer(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	values := in.RequestValidationInput.Request.Header.Values("Authorization")
	switch {
	case len(values) == 0:
		return in.NewError(fmt.Errorf("no Authorization header; %s requires \"Bearer <token>\"", in.SecuritySchemeName))
	case len(values) > 1:
		return in.NewError(errors.New("more than one Authorization header"))
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return in.NewError(fmt.Errorf("the Authorization header is not of the form \"Bearer <token>\" that %s requires", in.SecuritySchemeName))
	}
	return nil
}

// match is the operation a request resolves to, or a synthetic one when it
// names none.
type match struct {
	route  *routers.Route
	params map[string]string
	err    error // why the request matches no operation
}

func (m match) name() string {
	if m.err != nil {
		return "no operation"
	}
	return m.route.Operation.OperationID
}

// otherMethods are tried to tell an unknown path (404) from a known path with
// an unsupported method (405).
var otherMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// match resolves req to an operation below base, or, when base is "",
// skipping leading path segments that no contract path starts with.
func (s *spec) match(req *http.Request, base string) match {
	unknown := s.synthetic(req, s.unknownPath, fmt.Errorf("the contract has no operation %s %s", req.Method, req.URL.Path))
	path := req.URL.Path
	if nonCanonical(req) { // canonical.go
		return unknown
	}
	if base != "" {
		rest, ok := strings.CutPrefix(path, base)
		if !ok || !strings.HasPrefix(rest, "/") {
			return unknown
		}
		path = rest
	}
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		return unknown
	}
	for {
		probe := req.Clone(req.Context())
		probe.URL.Path, probe.URL.RawPath = path, ""
		if route, params, err := s.router.FindRoute(probe); err == nil {
			return match{route: route, params: params}
		}
		for _, method := range otherMethods {
			if method == req.Method {
				continue
			}
			probe.Method = method
			if _, _, err := s.router.FindRoute(probe); err == nil {
				return s.synthetic(req, s.unknownMethod, fmt.Errorf("the contract has no %s operation on %s", req.Method, path))
			}
		}
		seg, rest, found := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		if base != "" || !found || s.roots[seg] {
			return unknown
		}
		path = "/" + rest
	}
}

func (s *spec) synthetic(req *http.Request, op *openapi3.Operation, err error) match {
	return match{
		route: &routers.Route{Spec: s.doc, Path: req.URL.Path, PathItem: &openapi3.PathItem{}, Method: req.Method, Operation: op},
		err:   err,
	}
}

func (s *spec) validateRequest(req *http.Request, body []byte, m match) error {
	if m.err != nil {
		return m.err
	}
	r := req.Clone(context.WithoutCancel(req.Context()))
	if body != nil {
		setBody(r, body)
	} else {
		r.Body, r.GetBody, r.ContentLength = http.NoBody, nil, 0
	}
	err := openapi3filter.ValidateRequest(r.Context(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: m.params, Route: m.route, Options: s.options,
	})
	if err != nil {
		return errors.New(redact.Text(err.Error()))
	}
	return nil
}

func (s *spec) validateResponse(req *http.Request, m match, status int, header http.Header, body []byte) error {
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: m.params, Route: m.route, Options: s.options,
		},
		Status:  status,
		Header:  header,
		Options: s.options,
	}
	input.SetBodyBytes(body)
	var errs []error
	if err := openapi3filter.ValidateResponse(context.WithoutCancel(req.Context()), input); err != nil {
		msg := err.Error()
		if strings.Contains(msg, "status is not supported") {
			msg = fmt.Sprintf("status %d is not declared for this operation", status)
		}
		errs = append(errs, errors.New(redact.Text(msg)))
	}
	if err := checkProblemRequestID(status, header, body); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// checkProblemRequestID checks that a problem document names the request the
// Request-Id header names.
func checkProblemRequestID(status int, header http.Header, body []byte) error {
	if status < 400 {
		return nil
	}
	mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil || mt != wire.ProblemContentType {
		return nil // the schema check reports the content type
	}
	var p wire.Problem
	if json.Unmarshal(body, &p) != nil {
		return nil // the schema check reports the body
	}
	if id := header.Get("Request-Id"); id != "" && p.RequestID != id {
		return fmt.Errorf("problem request_id %q differs from the Request-Id header %q", p.RequestID, id)
	}
	return nil
}
