package a2a

// The error-code sentinels and the defaults the tests check, not exported.
var (
	ErrParse                     = errParse
	ErrInvalidRequest            = errInvalidRequest
	ErrMethodNotFound            = errMethodNotFound
	ErrInvalidParams             = errInvalidParams
	ErrInternal                  = errInternal
	ErrServer                    = errServer
	ErrPushNotSupported          = errPushNotSupported
	ErrUnsupportedOperation      = errUnsupportedOperation
	ErrContentTypeNotSupported   = errContentTypeNotSupported
	ErrInvalidAgentResponse      = errInvalidAgentResponse
	ErrExtendedCardNotConfigured = errExtendedCardNotConfigured
	ErrExtensionSupportRequired  = errExtensionSupportRequired
	ErrVersionNotSupported       = errVersionNotSupported
	ErrUnauthenticated           = errUnauthenticated
	ErrPermissionDenied          = errPermissionDenied
	ErrNotJSONRPC                = errNotJSONRPC
	ErrNoResult                  = errNoResult
	ErrIDMismatch                = errIDMismatch
	ErrBadErrorObject            = errBadErrorObject
	ErrUnrecognised              = errUnrecognised
)

const DefaultMaxRepeats = defaultMaxRepeats

// Building blocks the tests read, not exported.
var (
	ReadStream = readEvents
)
