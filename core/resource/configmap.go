package resource

import (
	"k8s.io/apimachinery/pkg/util/validation"
)

// maxConfigMapBytes bounds the data of one ConfigMap.
const maxConfigMapBytes = 1 << 20

// ConfigMap holds named strings: templates, configuration, anything.
type ConfigMap struct {
	TypeMeta
	Metadata ObjectMeta        `json:"metadata"`
	Data     map[string]string `json:"data,omitempty"`
}

func (c *ConfigMap) GetTypeMeta() *TypeMeta { return &c.TypeMeta }
func (c *ConfigMap) GetMeta() *ObjectMeta   { return &c.Metadata }

// KindConfigMap describes the ConfigMap kind.
var KindConfigMap = &Kind{
	Name:       "ConfigMap",
	Plural:     "configmaps",
	ShortNames: []string{"cm"},
	Namespaced: true,
	SpecField:  "data",
	New:        func() Object { return &ConfigMap{} },
	Default:    func(Object) {},
	Validate: func(obj, old Object) []FieldError {
		c := obj.(*ConfigMap)
		var errs []FieldError
		size := 0
		for k, v := range c.Data {
			for _, msg := range validation.IsConfigMapKey(k) {
				errs = append(errs, FieldError{"data[" + k + "]", msg})
			}
			size += len(k) + len(v)
		}
		if size > maxConfigMapBytes {
			errs = append(errs, FieldError{"data", "must be at most 1 MiB in total"})
		}
		return errs
	},
}

func init() { register(KindConfigMap) }
