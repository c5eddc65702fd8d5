package scribetest

import (
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// pluginRow is a plugin as the store keeps it: scribe.Plugin's fields
// without its pointer and with the two permissions as flags, 128 bytes
// against scribe.Plugin's 160. A map keeps an element of up to 128 bytes
// in its own slots; a larger one it keeps behind a pointer, one allocation
// (for the collector to trace) per plugin created, which showed in the
// profile of a POST /plugins. The store holds only the permission levels
// validatePlugin accepts (none and read), so a flag loses nothing.
type pluginRow struct {
	id, userID, crmIntegrationID int64
	name, description, logoURI   string
	createdOn, updatedOn         time.Time
	hasCRM, published, disabled  bool
	userRead, transcriptRead     bool
}

// newPluginRow is the row of p, whose permissions validatePlugin accepted.
func newPluginRow(p *scribe.Plugin) pluginRow {
	r := pluginRow{
		id: p.ID, userID: p.UserID,
		name: p.Name, description: p.Description, logoURI: p.LogoURI,
		createdOn: p.CreatedOn, updatedOn: p.UpdatedOn,
		published: p.Published, disabled: p.Disabled,
		userRead:       p.Permissions.User == scribe.PermissionRead,
		transcriptRead: p.Permissions.Transcript == scribe.PermissionRead,
	}
	if p.CRMIntegrationID != nil {
		r.hasCRM, r.crmIntegrationID = true, *p.CRMIntegrationID
	}
	return r
}

// plugin returns the plugin of the row, sharing nothing mutable with it.
func (r *pluginRow) plugin() scribe.Plugin {
	p := scribe.Plugin{
		ID: r.id, UserID: r.userID,
		Name: r.name, Description: r.description, LogoURI: r.logoURI,
		CreatedOn: r.createdOn, UpdatedOn: r.updatedOn,
		Published: r.published, Disabled: r.disabled,
		Permissions: scribe.Permissions{User: permissionOf(r.userRead), Transcript: permissionOf(r.transcriptRead)},
	}
	if r.hasCRM {
		v := r.crmIntegrationID
		p.CRMIntegrationID = &v
	}
	return p
}

func permissionOf(read bool) scribe.Permission {
	if read {
		return scribe.PermissionRead
	}
	return scribe.PermissionNone
}
