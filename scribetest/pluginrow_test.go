package scribetest

import (
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	scribe "github.com/scribehq/scribe-go"
)

// TestPluginRowRoundTrip protects what the store keeps of a plugin: every
// field of scribe.Plugin (TestPluginFieldsKnown fails if it gains one)
// comes back from the row unchanged, for both permission levels and with
// and without a CRM integration, and the plugin handed out shares no
// pointer with the row.
func TestPluginRowRoundTrip(t *testing.T) {
	t.Parallel()
	crm := int64(77)
	at := time.Date(2026, 11, 23, 16, 50, 0, 123, time.FixedZone("X", 3600))
	for _, p := range []scribe.Plugin{
		{ID: 1, Name: "a", Description: "d", Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionNone},
			Published: true, CRMIntegrationID: &crm, LogoURI: "https://x/l.png", UserID: 9, CreatedOn: at, UpdatedOn: at.Add(time.Second)},
		{ID: 2, Name: "b", Permissions: scribe.Permissions{User: scribe.PermissionNone, Transcript: scribe.PermissionRead},
			Disabled: true, UserID: 3, CreatedOn: at, UpdatedOn: at},
	} {
		r := newPluginRow(&p)
		got := r.plugin()
		if d := cmp.Diff(p, got); d != "" {
			t.Errorf("plugin %d after the row (-want +got):\n%s", p.ID, d)
		}
		if got.CRMIntegrationID != nil && got.CRMIntegrationID == p.CRMIntegrationID {
			t.Errorf("plugin %d: the CRM id is shared with the caller's", p.ID)
		}
	}
}

// TestPluginRowInline protects the reason for pluginRow: a map keeps an
// element of at most 128 bytes in its slots rather than behind a pointer
// allocated per insert.
func TestPluginRowInline(t *testing.T) {
	if n := unsafe.Sizeof(pluginRow{}); n > 128 {
		t.Errorf("pluginRow is %d bytes; a map stores elements over 128 bytes indirectly, one allocation per plugin", n)
	}
}
