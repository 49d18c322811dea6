package page

import "net/http"

// CrossOrigin answers a state-changing request that a browser sent from
// another site.
func (k *Kit) CrossOrigin(w http.ResponseWriter, r *http.Request) {
	k.RenderError(w, r, http.StatusForbidden, "This form was sent from another site, so it was refused.")
}
