package provider_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFakeProvider(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fake model provider")
}
