package plantstoretest

// The bounds a Profile's doc states, for the package's external tests.
const (
	MaxProfileBody  = maxProfileBody
	MaxProfileField = maxProfileField
	MaxProfileReply = maxProfileReply
)
