package service

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The LSA calls that grant an account a user right; golang.org/x/sys
// has no wrappers for them.
var (
	modAdvapi32             = windows.NewLazySystemDLL("advapi32.dll")
	procLsaOpenPolicy       = modAdvapi32.NewProc("LsaOpenPolicy")
	procLsaAddAccountRights = modAdvapi32.NewProc("LsaAddAccountRights")
	procLsaClose            = modAdvapi32.NewProc("LsaClose")
)

// Access to the local security policy that LsaAddAccountRights needs
// (POLICY_LOOKUP_NAMES, POLICY_CREATE_ACCOUNT in ntsecapi.h).
const (
	policyCreateAccount = 0x00000010
	policyLookupNames   = 0x00000800
)

// seServiceLogonRight is the right to log on as a service.
const seServiceLogonRight = "SeServiceLogonRight"

// grantServiceLogon gives account, as the SCM is given it, the right to
// log on as a service, unless it is a built-in service account
// (serviceLogonGrant). Granting a right the account holds changes nothing.
// It needs an administrator, as creating a service does.
func grantServiceLogon(account string) error {
	computer, err := windows.ComputerName()
	if err != nil {
		return err
	}
	name, grant := serviceLogonGrant(account, computer)
	if !grant {
		return nil
	}
	sid, _, _, err := windows.LookupSID("", name)
	if err != nil {
		return fmt.Errorf("look up the account %s: %w", name, err)
	}
	var attrs windows.OBJECT_ATTRIBUTES // LSA_OBJECT_ATTRIBUTES: zero but its length
	attrs.Length = uint32(unsafe.Sizeof(attrs))
	var policy windows.Handle
	if st, _, _ := procLsaOpenPolicy.Call(0, uintptr(unsafe.Pointer(&attrs)),
		policyCreateAccount|policyLookupNames, uintptr(unsafe.Pointer(&policy))); st != 0 {
		return fmt.Errorf("open the local security policy: %w", windows.NTStatus(st).Errno())
	}
	defer procLsaClose.Call(uintptr(policy))
	right, err := windows.NewNTUnicodeString(seServiceLogonRight)
	if err != nil {
		return err
	}
	if st, _, _ := procLsaAddAccountRights.Call(uintptr(policy), uintptr(unsafe.Pointer(sid)),
		uintptr(unsafe.Pointer(right)), 1); st != 0 {
		return fmt.Errorf("grant %s %s: %w", name, seServiceLogonRight, windows.NTStatus(st).Errno())
	}
	return nil
}
