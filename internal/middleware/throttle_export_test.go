package middleware

// ThrottleWait is throttleWait, for the tests of package middleware_test.
const ThrottleWait = throttleWait
