package plantstore

// NewPlant is the request body of [Client.CreatePlant]: a plant and the
// identifier the client chooses for it. ID is sent as given, zero included;
// Name is required; Tag is omitted when empty. Name and Tag must be valid
// UTF-8: the server stores the bytes it receives, so the client refuses
// text that JSON encoding would silently alter.
type NewPlant struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Tag  string `json:"tag,omitempty"`
}

// Plant is a plant as the server recorded it. The server does not echo the
// identifier, so Plant has no ID.
type Plant struct {
	Name string `json:"name"`
	Tag  string `json:"tag,omitempty"`
}
